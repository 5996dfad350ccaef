package filter

import (
	"strings"
	"testing"
)

// TestLimits checks every bound on an expression, just within and just
// beyond it.
func TestLimits(t *testing.T) {
	env := fixtureEnv(t)
	long := `name == "` + strings.Repeat("a", DefaultMaxLength-10) + `"`
	items := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = "1"
		}
		return "stock in [" + strings.Join(s, ", ") + "]"
	}
	comparisons := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = "stock != 1"
		}
		return strings.Join(s, " && ")
	}
	nested := func(n int) string {
		return strings.Repeat("!(", n) + "stock > 1" + strings.Repeat(")", n)
	}
	andNested := func(n int) string {
		return strings.Repeat("!(active && ", n) + "stock > 1" + strings.Repeat(")", n)
	}
	tests := []struct {
		name, expr, want string
	}{
		{"length at the limit", long, ""},
		{"length beyond", long + " ", "invalid filter: the filter is 2049 bytes long, more than 2048; shorten it"},
		{"list at the limit", items(DefaultMaxListItems), ""},
		{"list beyond", items(DefaultMaxListItems + 1), "invalid filter: in has a list of 101 items, more than 100; split the filter or narrow it"},
		{"comparisons at the limit", comparisons(DefaultMaxComparisons), ""},
		{"comparisons beyond", comparisons(DefaultMaxComparisons + 1), "invalid filter: the expression makes more than 50 comparisons; use in [...] for a list of values"},
		{"nesting within", nested(20), ""},
		// Each level is one parenthesis but two conditions deep: the
		// bound counts what the reader sees.
		{"nesting within, conditions twice as deep", andNested(DefaultMaxDepth), ""},
		{"nesting beyond, conditions twice as deep", andNested(DefaultMaxDepth + 1), "invalid filter: the filter nests deeper than 32 levels"},
		{"nesting beyond", nested(DefaultMaxDepth + 1), "invalid filter: the filter nests deeper than 32 levels"},
		// Nesting without brackets is bounded by the parser.
		{"selections beyond", "stock" + strings.Repeat(".a", 100) + " > 1", "invalid filter: the filter nests deeper than 32 levels"},
		{"invalid UTF-8", "name == \"\xff\"", "invalid filter: the filter is not valid UTF-8"},
		{"parentheses beyond", strings.Repeat("(", 40) + "stock > 1" + strings.Repeat(")", 40), "invalid filter: the filter nests deeper than 32 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := env.Translate(tt.expr, SQLite, func(int) string { return "c" }, func(any, Type) string { return "?" })
			got := ""
			if err != nil {
				got = strings.TrimSuffix(err.Error(), "; filterable fields: "+fixtureFieldList)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
