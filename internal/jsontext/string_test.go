package jsontext

import (
	"encoding/json"
	"testing"
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
