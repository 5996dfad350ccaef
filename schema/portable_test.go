package schema

import (
	"strings"
	"testing"
)

func TestPortable(t *testing.T) {
	long := strings.Repeat("é", MaxDescription+1)
	tests := []struct {
		name string
		s    *Schema
		want string // "" for no error
	}{
		{"fine", Object(Required("a", Text(strings.Repeat("é", MaxDescription)))), ""},
		{"long root", Text(long), "schema: description has 1025 characters, more than 1024"},
		{"long nested", Object(Required("items", ListOf(Object(Optional("name", Text(long))), ""))),
			"schema: description at items[].name has 1025 characters, more than 1024"},
		{"long map value", &Schema{Type: "object", AdditionalProperties: Text(long)},
			"schema: description at * has 1025 characters, more than 1024"},
		{"empty name and nil", &Schema{Type: "object", Properties: map[string]*Schema{"": Text(""), "b": nil}},
			"schema: empty property name\nschema: nil schema at b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.s.Portable()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
