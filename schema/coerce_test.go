package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCoercePolicy is the coercion policy as a table: a value, the type its
// property wants, the policy, and what comes out (or the sentences).
func TestCoercePolicy(t *testing.T) {
	t.Parallel()
	var (
		boolean  = &Schema{Type: "boolean"}
		number   = &Schema{Type: "number"}
		integer  = &Schema{Type: "integer"}
		text     = &Schema{Type: "string"}
		date     = &Schema{Type: "string", Format: "date"}
		list     = &Schema{Type: "array", Items: &Schema{Type: "string"}}
		numbers  = &Schema{Type: "array", Items: &Schema{Type: "integer"}}
		short    = &Schema{Type: "array", Items: &Schema{Type: "string", MaxLength: new(3)}, MaxItems: new(2)}
		small    = &Schema{Type: "integer", Maximum: new(10.0)}
		maybeInt = &Schema{Type: "integer", Nullable: true}
	)
	tests := []struct {
		name   string
		schema *Schema
		policy Policy
		in     string   // the value of property "v"
		out    string   // the value of "v" in the output, when valid
		errs   []string // the violations, when not
	}{
		{"true", boolean, Unambiguous, `"true"`, `true`, nil},
		{"false", boolean, Unambiguous, `"false"`, `false`, nil},
		{"True is not a boolean", boolean, Unambiguous, `"True"`, "", []string{`v: expected a boolean, got "True"`}},
		{"yes is not a boolean", boolean, Unambiguous, `"yes"`, "", []string{`v: expected a boolean, got "yes"`}},
		{"1 is not a boolean", boolean, Unambiguous, `1`, "", []string{`v: expected a boolean, got 1`}},
		{"strict true", boolean, Strict, `"true"`, "", []string{`v: expected a boolean, got "true"`}},
		{"number from string", number, Unambiguous, `"12.5"`, `12.5`, nil},
		{"negative number", number, Unambiguous, `"-0.5"`, `-0.5`, nil},
		{"exponent number", number, Unambiguous, `"1e3"`, `1e3`, nil},
		{"pounds", number, Unambiguous, `"£1,234.00"`, `1234.00`, nil},
		{"dollars", number, Unambiguous, `"$1,234.00"`, `1234.00`, nil},
		{"dollars without separator", number, Unambiguous, `"$12"`, `12`, nil},
		{"negative dollars", number, Unambiguous, `"-$5.25"`, `-5.25`, nil},
		{"pounds one group", number, Unambiguous, `"£1,234"`, `1234`, nil},
		{"grouped with decimals", number, Unambiguous, `"1,234.50"`, `1234.50`, nil},
		{"two groups", number, Unambiguous, `"1,234,567"`, `1234567`, nil},
		{"one group could be a decimal comma", number, Unambiguous, `"1,234"`, "", []string{`v: expected a number, got "1,234"`}},
		{"decimal comma", number, Unambiguous, `"€1.234,50"`, "", []string{`v: expected a number, got "€1.234,50"`}},
		{"euro", number, Unambiguous, `"€12"`, "", []string{`v: expected a number, got "€12"`}},
		{"bad group", number, Unambiguous, `"12,34.5"`, "", []string{`v: expected a number, got "12,34.5"`}},
		{"long first group", number, Unambiguous, `"1234,567.0"`, "", []string{`v: expected a number, got "1234,567.0"`}},
		{"words", number, Unambiguous, `"ten"`, "", []string{`v: expected a number, got "ten"`}},
		{"space", number, Unambiguous, `" 12"`, "", []string{`v: expected a number, got " 12"`}},
		{"leading zero", number, Unambiguous, `"012"`, "", []string{`v: expected a number, got "012"`}},
		{"hex", number, Unambiguous, `"0x10"`, "", []string{`v: expected a number, got "0x10"`}},
		{"infinity", number, Unambiguous, `"Inf"`, "", []string{`v: expected a number, got "Inf"`}},
		{"overflow", number, Unambiguous, `"1e999"`, "", []string{`v: expected a number, got "1e999"`}},
		{"strict number", number, Strict, `"12"`, "", []string{`v: expected a number, got "12"`}},
		{"integer from string", integer, Unambiguous, `"12"`, `12`, nil},
		{"integer with zero fraction", integer, Unambiguous, `"12.0"`, `12`, nil},
		{"integer exponent", integer, Unambiguous, `"1e3"`, `1000`, nil},
		{"integer dollars", integer, Unambiguous, `"$1,234.00"`, `1234`, nil},
		{"integer with fraction", integer, Unambiguous, `"12.5"`, "", []string{`v: expected an integer, got "12.5"`}},
		{"integer number written 12.0", integer, Unambiguous, `12.0`, `12`, nil},
		{"integer number written 1e3", integer, Unambiguous, `1e3`, `1000`, nil},
		{"strict leaves 12.0", integer, Strict, `12.0`, `12.0`, nil},
		{"strict integer", integer, Strict, `"12"`, "", []string{`v: expected an integer, got "12"`}},
		{"coerced then checked", small, Unambiguous, `"12"`, "", []string{`v: must be at most 10, got 12`}},
		{"nullable integer", maybeInt, Unambiguous, `"7"`, `7`, nil},
		{"list", list, Unambiguous, `"a, b"`, `["a","b"]`, nil},
		{"list of one", list, Unambiguous, `"a"`, `["a"]`, nil},
		{"list drops empty items", list, Unambiguous, `"a,, b ,"`, `["a","b"]`, nil},
		{"list escapes", list, Unambiguous, `"say \"hi\", \u00e9"`, `["say \"hi\"","é"]`, nil},
		{"list already", list, Unambiguous, `["a","b"]`, `["a","b"]`, nil},
		{"list coerced then checked", short, Unambiguous, `"a, b, cdef"`, "",
			[]string{"v[2]: must be at most 3 characters, got 4", "v: must have at most 2 items, got 3"}},
		{"list of integers is not split", numbers, Unambiguous, `"1, 2"`, "", []string{`v: expected an array, got "1, 2"`}},
		{"strict list", list, Strict, `"a, b"`, "", []string{`v: expected an array, got "a, b"`}},
		{"number is not a string", text, Unambiguous, `12`, "", []string{`v: expected a string, got 12`}},
		{"boolean is not a string", text, Unambiguous, `true`, "", []string{`v: expected a string, got true`}},
		{"date in words", date, Unambiguous, `"March 2026"`, "", []string{`v: expected a date written yyyy-MM-dd, got "March 2026"`}},
		{"date", date, Unambiguous, `"2026-03-01"`, `"2026-03-01"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &Schema{Type: "object", Properties: map[string]*Schema{"v": tt.schema}}
			in := `{"v":` + tt.in + `,"w":"as is"}`
			out, errs := validateStrings(t, s, tt.policy, in)
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Fatalf("violations (-want +got):\n%s", diff)
			}
			if want := `{"v":` + tt.out + `,"w":"as is"}`; errs == nil && out != want {
				t.Errorf("out = %s, want %s", out, want)
			}
		})
	}
}

func TestCoerceRootValue(t *testing.T) {
	t.Parallel()
	out, errs := validateStrings(t, &Schema{Type: "integer"}, Unambiguous, ` "42" `)
	if errs != nil || out != " 42 " {
		t.Errorf("Validate = %q, %v; want %q", out, errs, " 42 ")
	}
}
