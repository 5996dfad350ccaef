package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// searchSchema is a tool's input with an optional, defaulted property.
func searchSchema() *Schema {
	limit := Integer("At most this many.")
	limit.Minimum, limit.Maximum, limit.Default = new(1.0), new(50.0), []byte("10")
	tags := ListOf(Text(""), "Tags.")
	tags.Default = []byte(`["new"]`)
	return Object(
		Required("query", &Schema{Type: "string", MinLength: new(1)}),
		Optional("limit", limit),
		Optional("tags", tags),
		Optional("note", Text("")),
	)
}

// checkRewrites validates each in, which must be valid, and compares the
// document Validate returns with want.
func checkRewrites(t *testing.T, v *Validator, tests []struct{ in, want string }) {
	t.Helper()
	for _, tt := range tests {
		out, errs := v.Validate([]byte(tt.in))
		if errs != nil {
			t.Errorf("Validate(%s): %v", tt.in, errs)
			continue
		}
		if string(out) != tt.want {
			t.Errorf("Validate(%s) =\n  %s\nwant\n  %s", tt.in, out, tt.want)
		}
	}
}

func TestValidateFillsDefaultsOfAbsentProperties(t *testing.T) {
	v, err := Compile(searchSchema(), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{`{"query":"x"}`, `{"query":"x","limit":10,"tags":["new"]}`},
		{`{"query":"x","limit":3}`, `{"query":"x","limit":3,"tags":["new"]}`},
		{`{ "query":"x", "limit":3, "tags":[] }`, `{ "query":"x", "limit":3, "tags":[] }`},
		{`{"limit":null,"query":"x"}`, `{"limit":10,"query":"x","tags":["new"]}`},
	}
	checkRewrites(t, v, tests)
}

// An absent optional object gets the defaults its properties publish; a
// present one gets those it leaves out; one with a required property that
// has no default gets nothing, and a recursive schema implies nothing.
func TestValidateFillsDefaultsOfAnAbsentObject(t *testing.T) {
	max := Number("Highest price.")
	max.Default = []byte("1000")
	cur := Text("Currency.")
	cur.Default = []byte(`"EUR"`)
	price := Object(Optional("min", Number("Lowest price.")), Optional("max", max),
		Optional("money", Object(Optional("currency", cur))))
	needy := Object(Required("id", Text("")), Optional("max", max))
	tree := Object(Optional("max", max))
	tree.Properties["child"] = tree // recursive
	tree.PropertyOrder = append(tree.PropertyOrder, "child")
	v, err := Compile(Object(Required("query", Text("")), Optional("price", price), Optional("needy", needy),
		Optional("tree", tree)), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{`{"query":"x"}`, `{"query":"x","price":{"max":1000,"money":{"currency":"EUR"}},"tree":{"max":1000}}`},
		{`{"query":"x","price":{"min":5},"tree":{}}`, `{"query":"x","price":{"min":5,"max":1000,"money":{"currency":"EUR"}},"tree":{"max":1000}}`},
		{`{"query":"x","price":null,"tree":{"child":{}}}`, `{"query":"x","price":{"max":1000,"money":{"currency":"EUR"}},"tree":{"child":{"max":1000},"max":1000}}`},
	}
	checkRewrites(t, v, tests)
}

func TestValidateFillsDefaultsUnderStrictToo(t *testing.T) {
	v, err := Compile(searchSchema(), Strict)
	if err != nil {
		t.Fatal(err)
	}
	out, errs := v.Validate([]byte(`{"query":"x"}`))
	if errs != nil || string(out) != `{"query":"x","limit":10,"tags":["new"]}` {
		t.Errorf("got %s, %v", out, errs)
	}
}

func TestValidateFillsDefaultsOfAbsentArguments(t *testing.T) {
	s := Object(Optional("limit", &Schema{Type: "integer", Default: []byte("10")}))
	v, err := Compile(s, Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{``, `null`, `{}`} {
		if out, errs := v.Validate([]byte(in)); errs != nil || string(out) != `{"limit":10}` {
			t.Errorf("Validate(%q) = %s, %v", in, out, errs)
		}
	}
}

// A required property with a default is filled in, not reported missing.
func TestValidateFillsARequiredDefault(t *testing.T) {
	s := Object(Required("unit", &Schema{Type: "string", Default: []byte(`"metric"`)}))
	v, err := Compile(s, Strict)
	if err != nil {
		t.Fatal(err)
	}
	if out, errs := v.Validate([]byte(`{}`)); errs != nil || string(out) != `{"unit":"metric"}` {
		t.Errorf("got %s, %v", out, errs)
	}
	lenient, _ := Compile(s, Unambiguous)
	if out, errs := lenient.Validate([]byte(`{"unit":null}`)); errs != nil || string(out) != `{"unit":"metric"}` {
		t.Errorf("null: got %s, %v", out, errs)
	}
}

func TestCompileRefusesADefaultItsSchemaRefuses(t *testing.T) {
	s := Object(Optional("limit", &Schema{Type: "integer", Maximum: new(50.0), Default: []byte("100")}))
	_, err := Compile(s, Unambiguous)
	want := "schema: limit: default 100 does not fit the schema: must be at most 50, got 100"
	if err == nil || err.Error() != want {
		t.Errorf("Compile: %v, want %q", err, want)
	}
}

func TestValidateReadsNullForAnOptionalPropertyAsAbsent(t *testing.T) {
	v, err := Compile(searchSchema(), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	out, errs := v.Validate([]byte(`{"query":"x","note":null,"tags":null}`))
	if errs != nil || string(out) != `{"query":"x","note":null,"tags":["new"],"limit":10}` {
		t.Errorf("got %s, %v", out, errs)
	}
	// A required property is not optional: null for it is still refused.
	_, errs = v.Validate([]byte(`{"query":null}`))
	if len(errs) != 1 || errs[0].Error() != "query: expected a string, got null" {
		t.Errorf("required null: %v", errs)
	}
	// Strict coerces nothing, null included.
	strict, _ := Compile(searchSchema(), Strict)
	if _, errs := strict.Validate([]byte(`{"query":"x","note":null}`)); len(errs) != 1 {
		t.Errorf("strict: %v", errs)
	}
}

func TestValidateReadsAJSONArrayInAStringAsJSON(t *testing.T) {
	s := Object(
		Optional("tags", ListOf(Text(""), "")),
		Optional("ids", ListOf(Integer(""), "")),
	)
	v, err := Compile(s, Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want, err string }{
		{`{"tags":"[\"a\",\"b\"]"}`, `{"tags":["a","b"]}`, ""},
		{`{"tags":" [\"a, b\"] "}`, `{"tags":["a, b"]}`, ""},
		{`{"ids":"[1, 2]"}`, `{"ids":[1, 2]}`, ""},
		{`{"tags":"a, b"}`, `{"tags":["a","b"]}`, ""},
		{`{"tags":"[\"a\", \"b\""}`, "", `tags: expected an array, got a string that starts with [ but is not valid JSON: "[\"a\", \"b\""`},
		{`{"ids":"[\"1\", 2]"}`, `{"ids":[1, 2]}`, ""}, // read as if sent so: its items are coerced
		{`{"ids":"[1, \"x\"]"}`, "", `ids[1]: expected an integer, got "x"`},
	}
	for _, tt := range tests {
		out, errs := v.Validate([]byte(tt.in))
		switch {
		case tt.err != "" && (len(errs) != 1 || errs[0].Error() != tt.err):
			t.Errorf("Validate(%s) = %v, want %s", tt.in, errs, tt.err)
		case tt.err == "" && (errs != nil || string(out) != tt.want):
			t.Errorf("Validate(%s) = %s, %v, want %s", tt.in, out, errs, tt.want)
		}
	}
}

// Models send objects inside strings as often as arrays: a string holding
// a JSON object where an object is wanted is read as that object, then
// validated as if it had been sent so (members coerced, defaults filled).
func TestValidateReadsAJSONObjectInAStringAsJSON(t *testing.T) {
	max := Number("")
	max.Default = json.RawMessage(`1000`)
	s := Object(
		Optional("price", Object(
			Optional("min", Number("")),
			Optional("max", max),
		)),
		Optional("tags", ListOf(Text(""), "")),
	)
	v, err := Compile(s, Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want, err string }{
		{`{"price":"{\"min\":1}"}`, `{"price":{"min":1,"max":1000}}`, ""},
		{`{"price":" {\"min\":\"2\",\"max\":5} "}`, `{"price":{"min":2,"max":5}}`, ""},
		{`{"price":"{\"min\":1", "tags":"[\"a\"]"}`, "", `price: expected an object, got a string that starts with { but is not valid JSON: "{\"min\":1"`},
		{`{"price":"{\"min\":\"low\"}"}`, "", `price.min: expected a number, got "low"`},
		{`{"price":"cheap"}`, "", `price: expected an object, got "cheap"`},
	}
	for _, tt := range tests {
		out, errs := v.Validate([]byte(tt.in))
		switch {
		case tt.err != "" && (len(errs) != 1 || errs[0].Error() != tt.err):
			t.Errorf("Validate(%s) = %v, want %s", tt.in, errs, tt.err)
		case tt.err == "" && (errs != nil || string(out) != tt.want):
			t.Errorf("Validate(%s) = %s, %v, want %s", tt.in, out, errs, tt.want)
		}
	}
	// Strict reads no JSON inside strings.
	strict, _ := Compile(s, Strict)
	if _, errs := strict.Validate([]byte(`{"price":"{\"min\":1}"}`)); len(errs) != 1 || errs[0].Error() != `price: expected an object, got "{\"min\":1}"` {
		t.Errorf("strict: %v", errs)
	}
}

// B9: encoding/json matches member names without regard to case, so a
// member "QUERY" would decode into the field of "query" past its schema.
func TestValidateRefusesAKeyDifferingOnlyInCase(t *testing.T) {
	open := &Schema{Type: "object", Properties: map[string]*Schema{"query": {Type: "string", MinLength: new(1)}}}
	for _, p := range []Policy{Unambiguous, Strict} {
		v, err := Compile(open, p)
		if err != nil {
			t.Fatal(err)
		}
		_, errs := v.Validate([]byte(`{"query":"ok","QUERY":""}`))
		want := `QUERY: is not allowed: "QUERY" differs only in case from the property "query"; send it as "query"`
		if len(errs) != 1 || errs[0].Error() != want {
			t.Errorf("%v: got %v, want %s", p, errs, want)
		}
		if _, errs := v.Validate([]byte(`{"query":"ok","other":""}`)); errs != nil {
			t.Errorf("%v: an unrelated extra member: %v", p, errs)
		}
	}
}

func TestValidateUniqueItemsComparesByValue(t *testing.T) {
	v, err := Compile(&Schema{Type: "array", UniqueItems: true}, Strict)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want string // "" for valid
	}{
		{`[1, 2, 3]`, ""},
		{`[1, 1.0]`, "must not repeat items (item 1 repeats item 0)"},
		{`[0, -0]`, "must not repeat items (item 1 repeats item 0)"},
		{`["a", "\u0061"]`, "must not repeat items (item 1 repeats item 0)"},
		{`[{"a":1,"b":[2]}, {"b":[2.0], "a":1}]`, "must not repeat items (item 1 repeats item 0)"},
		{`[{"a":1}, {"a":"1"}, [1], ["1"], true, "true", null]`, ""},
		{`[1, 2, 3, 2, 1]`, "must not repeat items (item 3 repeats item 1)"},
	}
	for _, tt := range tests {
		_, errs := v.Validate([]byte(tt.in))
		got := ""
		if errs != nil {
			got = errs.Error()
		}
		if got != tt.want {
			t.Errorf("Validate(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// 20,000 integers took 19 s when every pair was compared.
func TestValidateUniqueItemsIsLinear(t *testing.T) {
	v, err := Compile(&Schema{Type: "array", UniqueItems: true, Items: &Schema{Type: "integer"}}, Strict)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteByte('[')
	const n = 200_000
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString(",0]")
	start := time.Now()
	_, errs := v.Validate([]byte(b.String()))
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("%d items took %v", n, elapsed)
	}
	if want := "must not repeat items (item 200000 repeats item 0)"; errs.Error() != want {
		t.Errorf("got %v, want %s", errs, want)
	}
}

func TestValidateListsAtMostMaxErrors(t *testing.T) {
	v, err := Compile(ListOf(Integer(""), ""), Strict)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := v.Validate([]byte("[" + strings.Repeat(`"x",`, 499) + `"x"]`))
	if len(errs) != MaxErrors+1 {
		t.Fatalf("got %d errors, want %d", len(errs), MaxErrors+1)
	}
	if diff := cmp.Diff("and 400 more violations, not listed", errs[MaxErrors].Error()); diff != "" {
		t.Error(diff)
	}
}

// A string of escapes is checked in time linear in its length: searching
// for the closing quote again from every escape took 19 s for 2 MB.
func TestValidateStringOfEscapesIsLinear(t *testing.T) {
	v, err := Compile(Object(Required("customer", Text(""))), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	for _, esc := range []string{`\n`, `\u00e9`} {
		doc := []byte(`{"customer":"` + strings.Repeat(esc, 1_000_000) + `"}`)
		start := time.Now()
		if _, errs := v.Validate(doc); errs != nil {
			t.Fatalf("%s: %v", esc, errs)
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Errorf("1,000,000 %s escapes took %v", esc, elapsed)
		}
	}
}

// uniqueItems and enum compare numbers by their exact value: integers
// beyond float64's precision are told apart, 1 and 1.0 are not.
func TestNumbersCompareByExactValue(t *testing.T) {
	uniq, err := Compile(&Schema{Type: "array", UniqueItems: true}, Strict)
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := uniq.Validate([]byte(`[9007199254740993,9007199254740992]`)); errs != nil {
		t.Errorf("two integers above 2^53 taken for each other: %v", errs)
	}
	if _, errs := uniq.Validate([]byte(`[1,1.0]`)); errs == nil {
		t.Error("1 and 1.0 taken as different items")
	}
	enum, err := Compile(&Schema{Enum: []json.RawMessage{[]byte("9007199254740993")}}, Strict)
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := enum.Validate([]byte(`9007199254740992`)); errs == nil {
		t.Error("enum accepted the neighbour of its integer above 2^53")
	}
}

// A schema with many properties finds a key that differs only in case
// from one of them by lookup, and refuses it as a small one does.
func TestValidateRefusesACaseFoldedKeyOfAWideSchema(t *testing.T) {
	var props []Prop
	for i := range 3 * foldScanMax {
		props = append(props, Optional(fmt.Sprintf("field%d", i), Text("")))
	}
	v, err := Compile(Object(props...), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := v.Validate([]byte(`{"FIELD40":"x","other":1}`))
	if got := errs.Error(); !strings.Contains(got, `"FIELD40" differs only in case from the property "field40"`) {
		t.Errorf("got %v", got)
	}
	// encoding/json matches "ſ" (long s) to "s": so must the lookup.
	v, err = Compile(Object(append(props, Optional("sku", Text("")))...), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	if _, errs := v.Validate([]byte(`{"ſku":"x"}`)); errs == nil || !strings.Contains(errs.Error(), `differs only in case from the property "sku"`) {
		t.Errorf("a key encoding/json matches to sku passed: %v", errs)
	}
}

// A subschema shared by many properties costs its implied default once,
// and an implied default too big to copy into every call is not implied:
// 2^18 leaves under 18 levels of shared objects took a second and filled
// in 4.7 MB.
func TestImpliedDefaultsOfSharedSubschemasAreBounded(t *testing.T) {
	leaf := Number("")
	leaf.Default = []byte("1")
	level := Object(Optional("x", leaf))
	for range 18 {
		level = Object(Optional("a", level), Optional("b", level))
	}
	start := time.Now()
	v, err := Compile(Object(Optional("root", level)), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("compiling took %v", elapsed)
	}
	out, errs := v.Validate([]byte(`{}`))
	if errs != nil {
		t.Fatal(errs)
	}
	if len(out) > 2*maxImplied {
		t.Errorf("{} became %d bytes", len(out))
	}
}

// Bounds are written, in the schema and in refusals, as encoding/json
// writes a number: an int32 bound in plain digits, not 2.147483647e+09.
func TestBoundsWrittenInPlainDigits(t *testing.T) {
	top, bottom, step := 2147483647.0, -2147483648.0, 0.01
	s := &Schema{Type: "integer", Minimum: &bottom, Maximum: &top}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"integer","minimum":-2147483648,"maximum":2147483647}`; string(b) != want {
		t.Errorf("schema = %s, want %s", b, want)
	}
	_, errs := validateStrings(t, s, Strict, `3000000000`)
	if want := []string{"must be at most 2147483647, got 3000000000"}; !cmp.Equal(errs, want) {
		t.Errorf("refusal = %q, want %q", errs, want)
	}
	huge, tiny := 1e21, 1e-7
	b, _ = json.Marshal(&Schema{Type: "number", Maximum: &huge, Minimum: &tiny, MultipleOf: &step})
	if want := `{"type":"number","minimum":1e-07,"maximum":1e+21,"multipleOf":0.01}`; string(b) != want {
		t.Errorf("schema = %s, want %s", b, want)
	}
}
