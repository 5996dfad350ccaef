package filter

import (
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
