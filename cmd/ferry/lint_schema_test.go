package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Valid JSON Schema 2020-12 is not reported, whatever keywords it uses,
// including what RE2 cannot compile but ECMA 262 can (lookahead).
func TestInvalidSchemaAcceptsValid(t *testing.T) {
	valid := []string{
		`{"type":"object"}`,
		`true`,
		`{}`,
		`{"type":["string","null"],"minLength":2.0,"maxLength":10,"pattern":"^(?=.*\\d)[a-z0-9]+$","format":"email"}`,
		`{"type":"object","properties":{"a":{"const":1},"b":{"enum":["x",1,null]},"c":{"anyOf":[{"type":"string"},{"type":"integer","minimum":-3.5,"multipleOf":0.5}]}},` +
			`"patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false,"required":["a"],"dependentRequired":{"a":["b"]},"$defs":{"d":{"type":"boolean"}}}`,
		`{"type":"array","prefixItems":[{"type":"string"}],"items":false,"minItems":0,"uniqueItems":true,"contains":{"type":"string"},"minContains":1}`,
		`{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"not":{"required":["a"]}},"x-custom":{"type":"whatever"}}`,
	}
	for _, s := range valid {
		if got := invalidSchema(json.RawMessage(s)); len(got) != 0 {
			t.Errorf("%s: %q, want no problems", s, got)
		}
	}
}

func TestInvalidSchemaFindsProblems(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`"object"`, "a schema is a string, not an object or a boolean"},
		{`{"type":[]}`, "type is an empty list at type"},
		{`{"type":["string","string"]}`, `type names "string" twice at type`},
		{`{"type":7}`, "type holds the number 7, not a type name at type"},
		{`{"properties":[]}`, "properties is a list, not an object of schemas at properties"},
		{`{"properties":{"a":"string"}}`, "a schema is a string, not an object or a boolean at properties.a"},
		{`{"anyOf":[]}`, "anyOf is a list, not a non-empty list of schemas at anyOf"},
		{`{"oneOf":[{"type":"nope"}]}`, `type "nope" is not one of array, boolean, integer, null, number, object, string at oneOf[0].type`},
		{`{"maxItems":1.5}`, "maxItems is the number 1.5, not a non-negative integer at maxItems"},
		{`{"minimum":"1"}`, "minimum is a string, not a number at minimum"},
		{`{"multipleOf":0}`, "multipleOf is the number 0, not a number above 0 at multipleOf"},
		{`{"description":{"en":"x"}}`, "description is an object, not a string at description"},
		{`{"pattern":"[a-"}`, `pattern "[a-" is not a regular expression: missing closing ] at pattern`},
		{`{"pattern":"*a"}`, `pattern "*a" is not a regular expression: missing argument to repetition operator at pattern`},
		{`{"patternProperties":{"(":{}}}`, `pattern "(" is not a regular expression: missing closing ) at patternProperties`},
		{`{"required":"a"}`, "required is a string, not a list of property names at required"},
		{`{"required":["a","a"]}`, `required names "a" twice at required`},
		{`{"enum":"a"}`, "enum is a string, not a list of values at enum"},
		{`{"uniqueItems":"yes"}`, "uniqueItems is a string, not a boolean at uniqueItems"},
		{`{"type":"object"} {}`, "is not JSON: data after the JSON value"},
	}
	for _, tt := range tests {
		got := invalidSchema(json.RawMessage(tt.schema))
		if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.schema, diff)
		}
	}
}

// A schema nested past the bound is one problem, not a deep walk.
func TestInvalidSchemaDepth(t *testing.T) {
	deep := strings.Repeat(`{"items":`, 200) + `{}` + strings.Repeat(`}`, 200)
	got := invalidSchema(json.RawMessage(deep))
	if len(got) != 1 || !strings.HasPrefix(got[0], "schemas nest deeper than 64 at items.items.") {
		t.Errorf("got %q", got)
	}
}

func TestPairedBraces(t *testing.T) {
	for s, want := range map[string]bool{
		"shop://orders/{id}": true, "a://{x}{?y,z}": true, "plain://x": true,
		"a://{": false, "a://}": false, "a://{}": false, "a://{{x}}": false, "a://{x": false,
	} {
		if got := pairedBraces(s); got != want {
			t.Errorf("pairedBraces(%q) = %v, want %v", s, got, want)
		}
	}
}

// A hostile schema cannot make lint's problems outgrow it many times
// over: a long property name is not repeated in the path of every
// problem below it, and one schema gives a bounded number of problems.
func TestInvalidSchemaProblemsBounded(t *testing.T) {
	var children strings.Builder
	for i := range 5000 {
		if i > 0 {
			children.WriteByte(',')
		}
		fmt.Fprintf(&children, `"p%d":1`, i)
	}
	long := strings.Repeat("n", 100_000)
	schema := `{"properties":{"` + long + `":{"properties":{` + children.String() + `}}}}`
	got := invalidSchema(json.RawMessage(schema))
	size := 0
	for _, p := range got {
		size += len(p)
	}
	if size > len(schema) {
		t.Errorf("%d problems of %d bytes in all from a schema of %d bytes", len(got), size, len(schema))
	}
	if len(got) == 0 || !strings.Contains(got[0], "a schema is the number 1") {
		t.Errorf("got %.200q, want the problems reported", got)
	}
	if want := fmt.Sprintf("and %d more problems", 5000-maxSchemaProblems); got[len(got)-1] != want {
		t.Errorf("last problem %q, want %q", got[len(got)-1], want)
	}
}
