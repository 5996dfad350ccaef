package schema

import (
	"encoding/json"
	"testing"
)

// A list of types, anyOf and oneOf are written where JSON Schema has
// them: the type keyword as an array, and the alternatives after enum,
// each one a schema written by the same writer.
func TestMarshalTypesAndAlternatives(t *testing.T) {
	t.Parallel()
	top := 2147483647.0
	tests := []struct {
		name string
		s    *Schema
		want string
	}{
		{"list of types", &Schema{Types: []string{"string", "integer"}, Description: "An id."},
			`{"type":["string","integer"],"description":"An id."}`},
		{"Types over Type", &Schema{Type: "string", Nullable: true, Types: []string{"null"}}, `{"type":["null"]}`},
		{"anyOf", &Schema{AnyOf: []*Schema{{Type: "string", MinLength: new(1)}, {Type: "integer", Maximum: &top}}},
			`{"anyOf":[{"type":"string","minLength":1},{"type":"integer","maximum":2147483647}]}`},
		{"oneOf after enum and anyOf", &Schema{Enum: []json.RawMessage{json.RawMessage(`"a"`)},
			OneOf: []*Schema{{Type: "string"}}, AnyOf: []*Schema{{Type: "string"}}, Default: json.RawMessage(`"a"`)},
			`{"enum":["a"],"anyOf":[{"type":"string"}],"oneOf":[{"type":"string"}],"default":"a"}`},
		{"nested", &Schema{Type: "object", Properties: map[string]*Schema{"x": {OneOf: []*Schema{{Type: "object", Closed: true}}}}},
			`{"type":"object","properties":{"x":{"oneOf":[{"type":"object","additionalProperties":false}]}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
