package schema

import (
	"encoding/json"
	"testing"
)

func TestBuilders(t *testing.T) {
	tests := []struct {
		name string
		s    *Schema
		want string
	}{
		{"Text", Text("A name."), `{"type":"string","description":"A name."}`},
		{"Date", Date("Due."), `{"type":"string","description":"Due. Written yyyy-MM-dd.","format":"date"}`},
		{"Date without description", Date(""), `{"type":"string","description":"Written yyyy-MM-dd.","format":"date"}`},
		{"Number", Number("A price."), `{"type":"number","description":"A price."}`},
		{"Integer", Integer(""), `{"type":"integer"}`},
		{"Flag", Flag("Dry run."), `{"type":"boolean","description":"Dry run."}`},
		{"ID", ID("The order."), `{"type":"string","description":"The order.","minLength":1}`},
		{"ListOf", ListOf(ID(""), "Orders."), `{"type":"array","description":"Orders.","items":{"type":"string","minLength":1}}`},
		{"Choice", Choice("Speed.", "slow", "fast"), `{"type":"string","description":"Speed.","enum":["slow","fast"]}`},
		{"Object", Object(
			Required("b", Text("")),
			Optional("a", Flag("")),
			Required("c", Integer("")),
		), `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"boolean"},"c":{"type":"integer"}},"required":["b","c"],"additionalProperties":false}`},
		{"empty Object", Object(), `{"type":"object","properties":{},"additionalProperties":false}`},
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

func TestBuildersPanic(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"duplicate property", func() { Object(Required("a", Text("")), Optional("a", Text(""))) }},
		{"empty name", func() { Object(Required("", Text(""))) }},
		{"nil schema", func() { Object(Required("a", nil)) }},
		{"Choice without values", func() { Choice("x") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.f()
		})
	}
}
