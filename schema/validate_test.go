package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validateStrings compiles s under p, validates in, and returns the output
// document and the violations as "path: message" lines.
func validateStrings(t *testing.T, s *Schema, p Policy, in string) (string, []string) {
	t.Helper()
	v, err := Compile(s, p)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	out, errs := v.Validate([]byte(in))
	var lines []string
	for _, e := range errs {
		lines = append(lines, e.Error())
	}
	return string(out), lines
}

func rawList(values ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(values))
	for i, v := range values {
		out[i] = json.RawMessage(v)
	}
	return out
}

func TestValidateKeywords(t *testing.T) {
	t.Parallel()
	str := &Schema{Type: "string"}
	tests := []struct {
		name   string
		schema *Schema
		in     string
		want   []string // nil: valid
	}{
		{"any accepts anything", &Schema{}, `[1,"a",{"b":null}]`, nil},
		{"string", str, `"x"`, nil},
		{"string got number", str, `12`, []string{"expected a string, got 12"}},
		{"string got null", str, `null`, []string{"expected a string, got null"}},
		{"nullable string null", &Schema{Type: "string", Nullable: true}, `null`, nil},
		{"nullable string got number", &Schema{Type: "string", Nullable: true}, `1`, []string{"expected a string or null, got 1"}},
		{"long value is cut", str, `[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]`,
			[]string{"expected a string, got [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16…"}},
		{"integer", &Schema{Type: "integer"}, `3`, nil},
		{"integer with zero fraction", &Schema{Type: "integer"}, `3.0`, nil},
		{"integer got fraction", &Schema{Type: "integer"}, `1.5`, []string{"expected an integer, got 1.5"}},
		{"number got string", &Schema{Type: "number"}, `"ten"`, []string{`expected a number, got "ten"`}},
		{"boolean got string", &Schema{Type: "boolean"}, `"yes"`, []string{`expected a boolean, got "yes"`}},
		{"object got array", &Schema{Type: "object"}, `[]`, []string{"expected an object, got []"}},
		{"array got object", &Schema{Type: "array"}, `{}`, []string{"expected an array, got {}"}},
		{"minimum", &Schema{Type: "integer", Minimum: new(1.0)}, `0`, []string{"must be at least 1, got 0"}},
		{"minimum ok", &Schema{Type: "integer", Minimum: new(1.0)}, `1`, nil},
		{"maximum", &Schema{Type: "number", Maximum: new(2.5)}, `3`, []string{"must be at most 2.5, got 3"}},
		{"exclusive maximum", &Schema{Type: "integer", ExclusiveMaximum: new(10.0)}, `10`, []string{"must be less than 10, got 10"}},
		{"exclusive minimum", &Schema{Type: "number", ExclusiveMinimum: new(0.0)}, `0`, []string{"must be greater than 0, got 0"}},
		{"multiple of", &Schema{Type: "integer", MultipleOf: new(5.0)}, `12`, []string{"must be a multiple of 5, got 12"}},
		{"multiple of decimal", &Schema{Type: "number", MultipleOf: new(0.01)}, `19.99`, nil},
		{"max length", &Schema{Type: "string", MaxLength: new(20)}, `"abcdefghijklmnopqrstuvw"`, []string{"must be at most 20 characters, got 23"}},
		{"min length", &Schema{Type: "string", MinLength: new(2)}, `"a"`, []string{"must be at least 2 characters, got 1"}},
		{"min length one", &Schema{Type: "string", MinLength: new(1)}, `""`, []string{`must be at least 1 character, got 0`}},
		{"length counts runes", &Schema{Type: "string", MaxLength: new(2)}, `"日本"`, nil},
		{"length decodes escapes", &Schema{Type: "string", MaxLength: new(2)}, `"\u65e5\ud83d\ude00"`, nil},
		{"pattern", &Schema{Type: "string", Pattern: "^[A-Z]+$"}, `"abc"`, []string{`must match the pattern ^[A-Z]+$, got "abc"`}},
		{"pattern is a search", &Schema{Type: "string", Pattern: "b"}, `"abc"`, nil},
		{"email", &Schema{Type: "string", Format: "email"}, `"bob"`, []string{`expected an email address, got "bob"`}},
		{"email ok", &Schema{Type: "string", Format: "email"}, `"bob@example.com"`, nil},
		{"date", &Schema{Type: "string", Format: "date"}, `"March 2026"`, []string{`expected a date written yyyy-MM-dd, got "March 2026"`}},
		{"date ok", &Schema{Type: "string", Format: "date"}, `"2026-03-31"`, nil},
		{"date that does not exist", &Schema{Type: "string", Format: "date"}, `"2026-02-29"`, []string{`expected a date written yyyy-MM-dd, got "2026-02-29"`}},
		{"date-time", &Schema{Type: "string", Format: "date-time"}, `"2026-03-31T10:00:00+01:00"`, nil},
		{"date-time without offset", &Schema{Type: "string", Format: "date-time"}, `"2026-03-31T10:00:00"`,
			[]string{`expected a date and time written yyyy-MM-ddTHH:mm:ssZ (RFC 3339), got "2026-03-31T10:00:00"`}},
		{"time", &Schema{Type: "string", Format: "time"}, `"23:59:60Z"`, nil},
		{"uri", &Schema{Type: "string", Format: "uri"}, `"/relative"`, []string{`expected an absolute URI, got "/relative"`}},
		{"uri ok", &Schema{Type: "string", Format: "uri"}, `"https://example.com/a?b=c#d"`, nil},
		{"uuid", &Schema{Type: "string", Format: "uuid"}, `"123"`, []string{`expected a UUID written xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, got "123"`}},
		{"uuid ok", &Schema{Type: "string", Format: "uuid"}, `"2eb8aa08-aa98-11ea-b4aa-73b441d16380"`, nil},
		{"hostname", &Schema{Type: "string", Format: "hostname"}, `"-bad.example"`, []string{`expected a hostname, got "-bad.example"`}},
		{"ipv4", &Schema{Type: "string", Format: "ipv4"}, `"127.0.0.01"`, []string{`expected an IPv4 address, got "127.0.0.01"`}},
		{"ipv6", &Schema{Type: "string", Format: "ipv6"}, `"::1"`, nil},
		{"ipv6 refuses ipv4", &Schema{Type: "string", Format: "ipv6"}, `"127.0.0.1"`, []string{`expected an IPv6 address, got "127.0.0.1"`}},
		{"unknown format passes", &Schema{Type: "string", Format: "colour"}, `"x"`, nil},
		{"format ignores other types", &Schema{Format: "date"}, `12`, nil},
		{"enum", &Schema{Type: "string", Enum: rawList(`"a"`, `"b"`)}, `"c"`, []string{`must be one of: "a", "b", got "c"`}},
		{"enum ok", &Schema{Type: "string", Enum: rawList(`"a"`, `"b"`)}, `"b"`, nil},
		{"enum compares numbers by value", &Schema{Enum: rawList(`1`, `{"a": [1, "x"]}`)}, `1.0`, nil},
		{"enum compares objects in any order", &Schema{Enum: rawList(`{"a":1,"b":2}`)}, `{"b":2.0,"a":1}`, nil},
		{"min items", &Schema{Type: "array", MinItems: new(1)}, `[]`, []string{"must have at least 1 item, got 0"}},
		{"max items", &Schema{Type: "array", MaxItems: new(2)}, `[1,2,3]`, []string{"must have at most 2 items, got 3"}},
		{"unique items", &Schema{Type: "array", UniqueItems: true}, `[1,{"a":1},"x",{"a":1.0}]`, []string{"must not repeat items (item 3 repeats item 1)"}},
		{"unique items ok", &Schema{Type: "array", UniqueItems: true}, `[1,"1",[1],{"a":1}]`, nil},
		{"items", &Schema{Type: "array", Items: str}, `["a",2,"c",true]`, []string{"[1]: expected a string, got 2", "[3]: expected a string, got true"}},
		{"required", &Schema{Type: "object", Required: []string{"a", "b"}}, `{"b":1}`, []string{"a: is required"}},
		{"closed", &Schema{Type: "object", Closed: true, PropertyOrder: []string{"color", "size"}, Properties: map[string]*Schema{"size": str, "color": str}},
			`{"colour":"red"}`, []string{`colour: is not allowed: unknown property "colour"; known properties: color, size`}},
		{"closed without properties", &Schema{Type: "object", Closed: true}, `{"a":1}`, []string{`a: is not allowed: unknown property "a"; this object takes no properties`}},
		{"open object ignores unknown", &Schema{Type: "object", Properties: map[string]*Schema{"a": str}}, `{"b":1}`, nil},
		{"map values", &Schema{Type: "object", AdditionalProperties: &Schema{Type: "integer"}}, `{"x":1,"y z":2,"w":3}`, nil},
		{"map values strict", &Schema{Type: "object", AdditionalProperties: &Schema{Type: "integer"}}, `{"x":1,"y z":true}`, []string{`["y z"]: expected an integer, got true`}},
		{"escaped key", &Schema{Type: "object", Properties: map[string]*Schema{"a": str}}, `{"\u0061":1}`, []string{"a: expected a string, got 1"}},
		{"absent arguments", &Schema{Type: "object"}, ``, nil},
		{"absent arguments are {}", &Schema{Type: "object", Required: []string{"a"}}, ` `, []string{"a: is required"}},
		{"null arguments", &Schema{Type: "object"}, `null`, nil},
		{"null arguments are {}", &Schema{Type: "object", Required: []string{"a"}}, `null`, []string{"a: is required"}},
		{"null for any schema", &Schema{Enum: rawList(`1`)}, `null`, []string{"must be one of: 1, got null"}},
		{"null for nullable object", &Schema{Type: "object", Nullable: true, Required: []string{"a"}}, `null`, nil},
		{"invalid JSON", &Schema{Type: "object"}, `{"a":`, []string{"arguments are not valid JSON: unexpected end of JSON input"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, got := validateStrings(t, tt.schema, Strict, tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate(%s) violations (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// orderSchema is a nested schema: an object holding an array of objects.
func orderSchema() *Schema {
	line := &Schema{
		Type:          "object",
		Closed:        true,
		PropertyOrder: []string{"sku", "qty", "note"},
		Properties: map[string]*Schema{
			"sku":  {Type: "string", MinLength: new(1), MaxLength: new(20), Pattern: "^[A-Z0-9-]+$"},
			"qty":  {Type: "integer", Minimum: new(1.0), Maximum: new(100.0)},
			"note": {Type: "string", Nullable: true},
		},
		Required: []string{"sku", "qty"},
	}
	return &Schema{
		Type:          "object",
		Closed:        true,
		PropertyOrder: []string{"customer", "placed", "express", "items", "tags"},
		Properties: map[string]*Schema{
			"customer": {
				Type:       "object",
				Properties: map[string]*Schema{"email": {Type: "string", Format: "email"}, "name": {Type: "string"}},
				Required:   []string{"email"},
			},
			"placed":  {Type: "string", Format: "date"},
			"express": {Type: "boolean"},
			"items":   {Type: "array", Items: line, MinItems: new(1), MaxItems: new(50)},
			"tags":    {Type: "array", Items: &Schema{Type: "string", Enum: rawList(`"gift"`, `"fragile"`, `"urgent"`)}, UniqueItems: true},
		},
		Required: []string{"customer", "items"},
	}
}

const validOrder = `{
	"customer": {"email": "ann@example.com", "name": "Ann"},
	"placed": "2026-03-31",
	"express": true,
	"items": [
		{"sku": "AB-1", "qty": 2},
		{"sku": "CD-22", "qty": 1, "note": null},
		{"sku": "EF-333", "qty": 10, "note": "by the door \u2014 thanks"}
	],
	"tags": ["gift", "fragile"]
}`

const invalidOrder = `{
	"customer": {"name": 7},
	"placed": "March 2026",
	"items": [
		{"sku": "AB-1", "qty": 0},
		{"sku": "ab", "qty": 1.5, "colour": "red"},
		{"sku": "ABCDEFGHIJKLMNOPQRSTUVW"}
	],
	"tags": ["gift", "gift", "cheap"]
}`

func TestValidateReportsEveryViolation(t *testing.T) {
	t.Parallel()
	out, got := validateStrings(t, orderSchema(), Unambiguous, invalidOrder)
	want := []string{
		"customer.name: expected a string, got 7",
		"customer.email: is required",
		`placed: expected a date written yyyy-MM-dd, got "March 2026"`,
		"items[0].qty: must be at least 1, got 0",
		`items[1].sku: must match the pattern ^[A-Z0-9-]+$, got "ab"`,
		"items[1].qty: expected an integer, got 1.5",
		`items[1].colour: is not allowed: unknown property "colour"; known properties: sku, qty, note`,
		"items[2].sku: must be at most 20 characters, got 23",
		"items[2].qty: is required",
		`tags[2]: must be one of: "gift", "fragile", "urgent", got "cheap"`,
		"tags: must not repeat items (item 1 repeats item 0)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if out != "" {
		t.Errorf("out = %s, want nothing", out)
	}
}

func TestValidateValidReturnsInput(t *testing.T) {
	t.Parallel()
	v, err := Compile(orderSchema(), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(validOrder)
	out, errs := v.Validate(in)
	if len(errs) > 0 {
		t.Fatalf("Validate: %v", errs)
	}
	if &out[0] != &in[0] || len(out) != len(in) {
		t.Errorf("out is not the input itself")
	}
}

func TestValidateNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	v, err := Compile(orderSchema(), Unambiguous)
	if err != nil {
		t.Fatal(err)
	}
	in := []byte(validOrder)
	_, _ = v.Validate(in) // warm the pool
	allocs := testing.AllocsPerRun(100, func() {
		if _, errs := v.Validate(in); len(errs) > 0 {
			t.Fatal(errs)
		}
	})
	if allocs != 0 {
		t.Errorf("Validate of a valid document: %v allocations, want 0", allocs)
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema *Schema
		want   string
	}{
		{"bad pattern", &Schema{Type: "object", Properties: map[string]*Schema{"a": {Type: "string", Pattern: "("}}},
			"schema: a: pattern: error parsing regexp: missing closing ): `(`"},
		{"unknown type", &Schema{Type: "text"}, `schema: unknown type "text"`},
		{"negative length", &Schema{Type: "string", MinLength: new(-1)}, "schema: minLength and maxLength must not be negative"},
		{"zero multipleOf", &Schema{Type: "number", MultipleOf: new(0.0)}, "schema: multipleOf must be greater than 0"},
		{"bad enum", &Schema{Items: &Schema{Enum: rawList(`{`)}}, "schema: []: enum value 0 is not JSON"},
		{"list of types", &Schema{Type: "object", Properties: map[string]*Schema{"a": {Types: []string{"string", "integer"}}}},
			"schema: a: the validator does not check a list of types (use Type, and Nullable for null): a schema that holds it can only be sent as it is, as raw JSON"},
		{"anyOf", &Schema{Items: &Schema{AnyOf: []*Schema{{Type: "string"}}}},
			"schema: []: the validator does not check anyOf: a schema that holds it can only be sent as it is, as raw JSON"},
		{"oneOf", &Schema{OneOf: []*Schema{{Type: "string"}, {Type: "integer"}}},
			"schema: the validator does not check oneOf: a schema that holds it can only be sent as it is, as raw JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compile(tt.schema, Unambiguous)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Compile error = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestCompileCyclicSchema(t *testing.T) {
	t.Parallel()
	tree := &Schema{Type: "object", Properties: map[string]*Schema{"name": {Type: "string"}}}
	tree.Properties["children"] = &Schema{Type: "array", Items: tree}
	_, got := validateStrings(t, tree, Strict, `{"name":"a","children":[{"name":"b","children":[{"name":3}]}]}`)
	want := []string{"children[0].children[0].name: expected a string, got 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestErrorsError(t *testing.T) {
	t.Parallel()
	errs := Errors{{Message: "arguments are not valid JSON: x"}, {Path: "items[2].sku", Message: "must be at most 20 characters, got 23"}}
	want := "arguments are not valid JSON: x\nitems[2].sku: must be at most 20 characters, got 23"
	if got := errs.Error(); got != want {
		t.Errorf("Errors.Error() = %q, want %q", got, want)
	}
}

func TestPolicyString(t *testing.T) {
	t.Parallel()
	for p, want := range map[Policy]string{Unambiguous: "unambiguous", Strict: "strict", 7: "Policy(7)"} {
		if got := p.String(); got != want {
			t.Errorf("Policy(%d).String() = %q, want %q", p, got, want)
		}
	}
}
