package filter

import (
	"errors"
	"strings"
	"testing"
)

// invalidTable holds expressions a model might send that are refused,
// with the exact refusal each gets (the field list aside).
var invalidTable = []struct {
	name, expr, want string
}{
	{"single =", `cost = 5`,
		"invalid filter: syntax error at column 6: token recognition error at: '= '; compare with ==, not ="},
	{"AND", `stock > 1 AND cost < 2.0`,
		"invalid filter: syntax error at column 11: mismatched input 'AND' expecting <EOF>; write && for AND, || for OR and ! for NOT"},
	{"LIKE", `name LIKE '%x%'`,
		"invalid filter: syntax error at column 6: mismatched input 'LIKE' expecting <EOF>; instead of LIKE write name.contains(\"x\"), name.startsWith(\"x\") or name.endsWith(\"x\")"},
	{"IS NULL", `note IS NULL`,
		"invalid filter: syntax error at column 6: mismatched input 'IS' expecting <EOF>; instead of IS NULL write == null, and != null for IS NOT NULL"},
	{"IS NOT NULL", `note IS NOT NULL`,
		"invalid filter: syntax error at column 6: mismatched input 'IS' expecting <EOF>; instead of IS NULL write == null, and != null for IS NOT NULL"},
	{"Contains", `name.Contains("x")`,
		"invalid filter: unknown function \"Contains\"; function names are case-sensitive: write contains"},
	{"StartsWith", `name.StartsWith("x")`,
		"invalid filter: unknown function \"StartsWith\"; function names are case-sensitive: write startsWith"},
	{"NUL in a literal", `name == "a\x00"`,
		`invalid filter: text literals cannot hold the NUL character (\x00)`},
	{"NUL in a match", `note.contains("\u0000")`,
		`invalid filter: text literals cannot hold the NUL character (\x00)`},
	{"unsigned equality", `stock == 5u`,
		"invalid filter: == cannot be applied to integer or null and unsigned integer; write the integer without its u suffix, such as 5"},
	{"field case", `Cost > 5.0`,
		"invalid filter: unknown field \"Cost\"; did you mean \"cost\"?"},
	{"field typo", `nmae == "x"`,
		"invalid filter: unknown field \"nmae\"; did you mean \"name\"?"},
	{"unknown", `colour == "red"`,
		"invalid filter: unknown field or function \"colour\""},
	{"single &", `stock > 1 & qty < 2`,
		"invalid filter: syntax error at column 11: token recognition error at: '& '; write && and || doubled"},
	{"single |", `stock > 1 | qty < 2`,
		"invalid filter: syntax error at column 11: token recognition error at: '| '; write && and || doubled"},
	{"<>", `name <> "x"`,
		"invalid filter: syntax error at column 7: extraneous input '>'; write != for <>"},
	{"BETWEEN", `stock BETWEEN 1 AND 5`,
		"invalid filter: syntax error at column 7: mismatched input 'BETWEEN' expecting <EOF>; write && for AND, || for OR and ! for NOT; instead of BETWEEN write x >= 1 && x <= 5"},
	{"SQL in", `name IN ("a", "b")`,
		"invalid filter: syntax error at column 6: mismatched input 'IN' expecting <EOF>; write the list of in in square brackets: status in [\"new\", \"open\"]"},
	{"SQL quote escape", `name == 'it''s'`,
		"invalid filter: syntax error at column 13: extraneous input ''s'' expecting <EOF>; inside quotes write \\' for a quote, or quote with the other kind: \"it's\""},
	{"integer for number", `cost == 100`,
		"invalid filter: cost is a number and cannot be compared with an integer; write the integer with a decimal point, such as 100.0"},
	{"quoted number", `stock > "5"`,
		"invalid filter: stock is an integer and cannot be compared with text; only text is quoted: write numbers, true and false bare"},
	{"unquoted text", `name == 5`,
		"invalid filter: name is text and cannot be compared with an integer; text values are quoted, such as name == \"5\""},
	{"null on a non-null field", `qty == null`,
		"invalid filter: == cannot be applied to integer and null; only a field that may be null can be compared with null"},
	{"ordering null", `stock > null`,
		"invalid filter: > cannot be applied to integer or null and null; null can only be tested with == null or != null"},
	{"arithmetic", `stock + 1 > 2`,
		"invalid filter: arithmetic (+) is not supported in filters; compute the value and compare the field with it"},
	{"arithmetic literal", `stock > 1 + 1`,
		"invalid filter: arithmetic (+) is not supported in filters; compute the value and compare the field with it"},
	{"negation", `-stock > 1`,
		"invalid filter: negation (-) is not supported in filters; filters compare fields with literals, with && || ! in [...] and contains, startsWith, endsWith"},
	{"ternary", `stock > 1 ? true : false`,
		"invalid filter: the conditional operator (? :) is not supported in filters; combine conditions with && and ||"},
	{"has", `has(note)`,
		"invalid filter: has() is not supported in filters; test a field for null with x != null"},
	{"exists", `[1, 2].exists(x, x > 1)`,
		"invalid filter: the macro exists() is not supported in filters; compare a field with a literal, or use in [...]"},
	{"matches", `name.matches("a.*")`,
		"invalid filter: the method .matches() is not supported in filters; use contains, startsWith or endsWith"},
	{"size", `size(name) > 2`,
		"invalid filter: the function size() is not supported in filters; compare the field itself"},
	{"a date with a timestamp", `due < seen`,
		"invalid filter: < compares due (date) with seen (timestamp); compare fields of the same type; an integer and a number compare with < <= > >="},
	{"an integer equal to a number", `stock == cost`,
		"invalid filter: == cannot be applied to stock (integer or null) and cost (number); compare fields of the same type; an integer and a number compare with < <= > >= only"},
	{"text with a number", `name < cost`,
		"invalid filter: < cannot be applied to name (text) and cost (number); compare fields of the same type; an integer and a number compare with < <= > >= only"},
	{"two literals", `1 == 1`,
		"invalid filter: == has no field on either side (the literal 1, the literal 1); compare a field with a literal, such as cost > 100"},
	{"not a condition", `stock`,
		"invalid filter: the filter is integer or null, not a condition; compare a field with a literal, such as cost > 100"},
	{"a string", `"abc"`,
		"invalid filter: the filter is text, not a condition; compare a field with a literal, such as cost > 100"},
	{"empty list", `stock in []`,
		"invalid filter: in has an empty list; list at least one value"},
	{"in a field", `"a" in name`,
		"invalid filter: in needs a field on its left and a list of literals on its right; write status in [\"new\", \"open\"]"},
	{"non-literal argument", `name.contains(note)`,
		"invalid filter: contains() of the field note is not supported; contains() takes a quoted literal, such as name.contains(\"x\")"},
	{"contains on a number", `stock.contains("x")`,
		"invalid filter: contains() needs a text field, not integer or null; write name.contains(\"x\")"},
	{"bad date", `due == date("2024-13-01")`,
		"invalid filter: \"2024-13-01\" is not a date; write date(\"2024-05-01\")"},
	{"bad timestamp", `seen > timestamp("yesterday")`,
		"invalid filter: \"yesterday\" is not an RFC 3339 timestamp; write timestamp(\"2024-05-01T10:00:00Z\")"},
	{"nanoseconds", `seen > timestamp("2024-01-01T00:00:00.0000001Z")`,
		"invalid filter: timestamps are precise to the microsecond; drop the digits after the sixth decimal"},
	{"huge double for an integer", `stock > 1e300`,
		"invalid filter: 1e+300 is too large to compare with an integer field exactly; compare an integer field with an integer"},
	{"empty", `   `,
		"invalid filter: the filter is empty; write a condition such as cost > 100"},
	{"function call", `int(name) > 1`,
		"invalid filter: the function int() is not supported in filters; filters compare fields with literals, with && || ! in [...] and contains, startsWith, endsWith"},
	{"timestamp of a field", `seen > timestamp(name)`,
		"invalid filter: timestamp() of the field name is not supported; timestamp() takes a quoted literal, such as timestamp(\"2024-05-01T10:00:00Z\")"},
	{"index", `name[0] == "a"`,
		"invalid filter: indexing ([]) is not supported in filters"},
	{"lowerAscii of a uuid", `uid.lowerAscii() == "a"`,
		"invalid filter: lowerAscii() applies only to a text field; write name.lowerAscii() == \"apple\""},
	{"toLowerCase", `name.toLowerCase() == "a"`,
		"invalid filter: unknown function \"toLowerCase\"; for case-insensitive matching write name.lowerAscii() == \"apple\" (it lowers A to Z only)"},
	{"LOWER", `LOWER(name) == "a"`,
		"invalid filter: unknown function \"LOWER\"; for case-insensitive matching write name.lowerAscii() == \"apple\" (it lowers A to Z only)"},
	{"quoted date", `due == "2024-05-01"`,
		"invalid filter: due is a date and cannot be compared with text; write a date as date(\"2024-05-01\")"},
	{"quoted date on the left", `"2024-05-01" < due`,
		"invalid filter: due is a date and cannot be compared with text; write a date as date(\"2024-05-01\")"},
	{"quoted timestamp", `seen >= "2024-05-01T10:00:00Z"`,
		"invalid filter: seen is a timestamp and cannot be compared with text; write a timestamp as timestamp(\"2024-05-01T10:00:00Z\")"},
	{"date with a number", `due > 20240501`,
		"invalid filter: due is a date and cannot be compared with an integer; write a date as date(\"2024-05-01\")"},
	{"bytes", `name == b"abc"`,
		"invalid filter: name is text and cannot be compared with bytes; text values are quoted, such as name == \"5\""},
	{"map", `{"a": 1}["a"] == 1`,
		"invalid filter: indexing ([]) is not supported in filters; filters compare fields with literals, with && || ! in [...] and contains, startsWith, endsWith"},
	{"unterminated", `name == "abc`,
		"invalid filter: syntax error at column 9: token recognition error at: '\"abc'"},
}

func TestInvalidFilters(t *testing.T) {
	env := fixtureEnv(t)
	for _, tt := range invalidTable {
		t.Run(tt.name, func(t *testing.T) {
			var bound int
			sql, err := env.Translate(tt.expr, SQLite, func(int) string { return "c" }, func(any, Type) string { bound++; return "?" })
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("Translate(%q) = %q, %v; want a refusal", tt.expr, sql, err)
			}
			got, ok := strings.CutSuffix(err.Error(), "; filterable fields: "+fixtureFieldList)
			if !ok {
				t.Errorf("the refusal does not end with the field list: %q", err.Error())
			}
			if got != tt.want {
				t.Errorf("Translate(%q):\n got %q\nwant %q", tt.expr, got, tt.want)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the refusal is %d bytes long", len(err.Error()))
			}
		})
	}
}

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
