package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, 注文 ok", "plain text, 注文 ok"},
		{"two\nlines\r", `two\nlines\r`},
		{"esc\x1b[2J del\x7f csi\u009b31m", `esc\x1b[2J del\x7f csi\u009b31m`},
		{"\u202egnp.exe", `\u202egnp.exe`},
		{"a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"zero\u200bwidth, tag\U000E0041", `zero\u200bwidth, tag\U000e0041`},
		{"bad\xff\xc3", `bad\xff\xc3`},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in); got != tt.want {
			t.Errorf("oneLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	in := "{\n  \"a\": \"x\u009by \u202e \u2028 \x7f \U000E0041 \xff ok é\"\n}\n"
	want := "{\n  \"a\": \"x\\u009by \\u202e \\u2028 \\u007f \\udb40\\udc41 \\ufffd ok é\"\n}\n"
	if got := string(escapeJSON([]byte(in))); got != want {
		t.Errorf("escapeJSON = %q, want %q", got, want)
	}
	plain := []byte(`{"a": "b"}`)
	if got := escapeJSON(plain); &got[0] != &plain[0] {
		t.Error("plain JSON was copied")
	}
}

// Whatever JSON a server sends, what ferry prints holds no unsafe rune
// but the line feeds of its indentation, and decodes to what the
// server's JSON decodes to.
func FuzzEscapeJSON(f *testing.F) {
	for _, seed := range []string{`{"a":"b"}`, "{\"t\":\"\u202e\u009b\U000E0041\"}", "[\"\xff\x7f\"]", `"\u2028"`, `{"n":[1,2.5e3,true,null]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := formatJSON(data)
		if err != nil {
			return
		}
		if !utf8.Valid(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		for _, r := range string(out) {
			if unsafeRune(r) && r != '\n' {
				t.Fatalf("%U left raw in %q", r, out)
			}
		}
		var want, got any
		errWant, errGot := json.Unmarshal(data, &want), json.Unmarshal(out, &got)
		if (errWant == nil) != (errGot == nil) || !reflect.DeepEqual(want, got) {
			t.Fatalf("%q decodes to %v (%v), escaped %q to %v (%v)", data, want, errWant, out, got, errGot)
		}
	})
}

// A stdio server's stderr keeps its lines and tabs, its other unsafe
// runes escaped, a rune cut between two writes included.
func TestEscapingWriter(t *testing.T) {
	var sb strings.Builder
	w := &escapingWriter{w: &sb}
	text := "one\tline\n\u202etwo\x1b[0m \xff é\U000E0041\n"
	for i := range len(text) { // one byte at a time: every rune is cut
		if n, err := w.Write([]byte{text[i]}); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if want := "one\tline\n\\u202etwo\\x1b[0m \\xff é\\U000e0041\n"; sb.String() != want {
		t.Errorf("wrote %q, want %q", sb.String(), want)
	}
}
