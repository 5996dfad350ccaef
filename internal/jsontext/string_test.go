package jsontext

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

var stringSeeds = []string{
	`""`, `"plain"`, `"日本語"`, "\"\xff\xfe\"", "\"a\xc3\"", `"\u00e9\n\t\"\\\/"`, `"\ud83d\ude00"`,
	`"\ud83d"`, `"\ude00"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"\uFFFD"`,
	"\"\xed\xa0\x80\"", `"\u0000"`, `"\b\f\r"`,
}

// FuzzUnquote holds Unquote to json.Unmarshal into a string, on every
// valid JSON string.
func FuzzUnquote(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		if len(lit) == 0 || lit[0] != '"' {
			return
		}
		if end, ok := CheckString(lit, 0); !ok || end != len(lit) {
			return
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatalf("json.Unmarshal(%q): %v", lit, err)
		}
		if got := Unquote(lit); got != want {
			t.Fatalf("Unquote(%q) = %q, json.Unmarshal says %q", lit, got, want)
		}
	})
}

// Unescape decodes escapes as Unquote does but keeps bytes that are not
// UTF-8, which the schema validator compares as sent.
func TestUnescapeKeepsInvalidUTF8(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a\nb`, "a\nb"},
		{"\xff\\u00e9", "\xffé"},
		{`\ud83d\ude00`, "😀"},
		{`\ud83d`, "\uFFFD"},
		{`\u12`, "\uFFFD12"},
		{`\`, `\`},
	}
	for _, tt := range tests {
		if got := string(Unescape(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("Unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUnquotePlainDoesNotCopyTwice(t *testing.T) {
	lit := []byte(`"tools/call"`)
	if n := testing.AllocsPerRun(100, func() { _ = Unquote(lit) }); n > 1 {
		t.Errorf("%v allocations", n)
	}
}

func TestUnquoteKnownReturnsTheKnownString(t *testing.T) {
	known := []string{"ping", "tools/call"}
	if n := testing.AllocsPerRun(100, func() { _ = UnquoteKnown([]byte(`"tools/call"`), known) }); n != 0 {
		t.Errorf("%v allocations for a known string", n)
	}
	for lit, want := range map[string]string{`"tools/call"`: "tools/call", `"tools\/call"`: "tools/call", `"x"`: "x", `""`: ""} {
		if got := UnquoteKnown([]byte(lit), known); got != want {
			t.Errorf("UnquoteKnown(%s) = %q, want %q", lit, got, want)
		}
	}
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x1f ctl",
		"héllo 世界", "bad \xff utf8", "sep \u2028 \u2029", "<html> & 'x'"} {
		var got string
		if err := json.Unmarshal(AppendString(nil, s), &got); err != nil {
			t.Errorf("AppendString(%q) is not valid JSON: %v", s, err)
			continue
		}
		var want string
		data, _ := json.Marshal(s)
		_ = json.Unmarshal(data, &want)
		if got != want {
			t.Errorf("AppendString(%q) decodes to %q, want %q", s, got, want)
		}
	}
}

// FuzzAppendString checks that AppendString always writes a JSON string
// that decodes to the input (with invalid UTF-8 replaced).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote\"back\\slash", "\x00\x1f\n\r\t", "\u2028\u2029", "\xff\xfe", "日本語", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("AppendString(%q) = %s: %v", s, b, err)
		}
		if utf8.ValidString(s) && got != s {
			t.Errorf("AppendString(%q) decodes to %q", s, got)
		}
	})
}
