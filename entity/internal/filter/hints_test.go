package filter

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestSkipString(t *testing.T) {
	for _, tt := range []struct {
		expr string
		want int
	}{
		{`"abc" x`, 5},
		{`'a\'b' x`, 6},
		{`r"a\" x`, 5},
		{`br'a\' x`, 6},
		{`"""a"b""" x`, 9},
		{`'''a\'''b''' x`, 12},
		{`"abc`, 4},
		{`x"a\"b"`, 7},
	} {
		i := 0
		for tt.expr[i] != '"' && tt.expr[i] != '\'' {
			i++
		}
		if got := skipString(tt.expr, i); got != tt.want {
			t.Errorf("skipString(%q, %d) = %d, want %d", tt.expr, i, got, tt.want)
		}
	}
}

// TestShapeBeforeParsing shows the lexical bounds refuse what cel-go
// would be slow to check, and ignore brackets and commas in strings.
func TestShapeBeforeParsing(t *testing.T) {
	env := fixtureEnv(t)
	for _, tt := range []struct{ expr, want string }{
		{`stock in [` + strings.Repeat("1,", 101) + `1]`, "invalid filter: the filter has a list of more than 100 items; split the filter or narrow it"},
		{strings.Repeat("[", 33), "invalid filter: the filter nests deeper than 32 levels"},
		{strings.Repeat("true ? ", 120) + "true" + strings.Repeat(" : false", 120),
			"invalid filter: syntax error: the filter could not be read; check that brackets and quotes pair up; the conditional operator (? :) is not supported"},
		{`name in ["` + strings.Repeat(",", 500) + `", "(((((((((((((((((((((((((((((((((((("]`, ""},
		{`name in [r"\", "` + strings.Repeat(",", 200) + `"]`, ""},
	} {
		_, err := env.Translate(tt.expr, SQLite, func(int) string { return "c" }, func(any, Type) string { return "?" })
		got := ""
		if err != nil {
			got = err.Error()[:len(err.Error())-len("; filterable fields: "+fixtureFieldList)]
		}
		if got != tt.want {
			t.Errorf("%.60q:\n got %q\nwant %q", tt.expr, got, tt.want)
		}
	}
}

// TestFieldListBounded shows a refusal lists at most maxListedFields
// fields and counts the rest, however wide the entity.
func TestFieldListBounded(t *testing.T) {
	fields := make([]Field, maxListedFields+5)
	for i := range fields {
		fields[i] = Field{Name: fmt.Sprintf("f%d", i), Type: Integer}
	}
	env, err := NewEnv(fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = env.Translate("nope > 1", SQLite, func(int) string { return "c" }, func(any, Type) string { return "?" })
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("Translate = %v, want a refusal", err)
	}
	if n := strings.Count(fe.Fields, "(integer)"); n != maxListedFields || !strings.HasSuffix(fe.Fields, " and 5 more") {
		t.Errorf("the refusal lists %d fields: %q", n, fe.Fields)
	}
}
