package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Schema is a JSON Schema (draft 2020-12) node, limited to the keywords
// Ferry emits. [Compile] checks them all but Types, AnyOf and OneOf, which
// it refuses: those are for schemas sent as they are (a tool's
// RawInputSchema or output schema, as package openapi writes them). The
// zero value accepts any JSON value. A Schema is immutable once compiled
// or registered; build a new one to change it.
type Schema struct {
	// Type is the JSON type: "object", "array", "string", "number",
	// "integer" or "boolean", or empty for any.
	Type string
	// Nullable also allows null (the type is written as [Type, "null"]).
	Nullable bool
	// Types, if not empty, is the type keyword as a list of JSON types,
	// such as ["string", "integer"], written instead of Type and Nullable.
	// [Compile] refuses it: for one type, or one type and null, use Type
	// and Nullable.
	Types []string

	Title       string
	Description string
	Default     json.RawMessage
	Examples    []json.RawMessage
	Deprecated  bool

	// Object keywords. Properties are written in PropertyOrder, then any
	// others in name order.
	Properties    map[string]*Schema
	PropertyOrder []string
	Required      []string
	// Closed writes additionalProperties: false: unknown properties are
	// refused.
	Closed bool
	// AdditionalProperties is the schema of properties not listed, for maps.
	AdditionalProperties *Schema

	// Array keywords.
	Items       *Schema
	MinItems    *int
	MaxItems    *int
	UniqueItems bool

	// Number keywords.
	Minimum          *float64
	Maximum          *float64
	ExclusiveMinimum *float64
	ExclusiveMaximum *float64
	MultipleOf       *float64

	// String keywords.
	MinLength *int
	MaxLength *int
	Pattern   string
	// Format is one of email, uri, uuid, date, date-time, time, hostname,
	// ipv4, ipv6 (checked), or another name (passed through unchecked).
	Format string

	// Enum lists the allowed values, as JSON.
	Enum []json.RawMessage

	// AnyOf lists schemas a value must match at least one of. [Compile]
	// refuses it: the validator does not check alternatives.
	AnyOf []*Schema
	// OneOf lists schemas a value must match exactly one of. [Compile]
	// refuses it, as it refuses AnyOf.
	OneOf []*Schema
}

// MarshalJSON implements [json.Marshaler]: keywords in a fixed order,
// properties in PropertyOrder.
func (s *Schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	w := &writer{b: &b}
	switch {
	case len(s.Types) > 0:
		w.value("type", s.Types)
	case s.Type != "":
		if s.Nullable {
			w.raw("type", `["`+s.Type+`","null"]`)
		} else {
			w.str("type", s.Type)
		}
	}
	w.str("title", s.Title)
	w.str("description", s.Description)
	if s.Properties != nil {
		w.key("properties")
		b.WriteByte('{')
		for i, name := range s.propertyNames() {
			if i > 0 {
				b.WriteByte(',')
			}
			data, err := json.Marshal(s.Properties[name])
			if err != nil {
				return nil, fmt.Errorf("property %q: %w", name, err)
			}
			b.Write(quote(name))
			b.WriteByte(':')
			b.Write(data)
		}
		b.WriteByte('}')
	}
	if len(s.Required) > 0 {
		w.value("required", s.Required)
	}
	if s.Closed {
		w.raw("additionalProperties", "false")
	} else if s.AdditionalProperties != nil {
		w.value("additionalProperties", s.AdditionalProperties)
	}
	if s.Items != nil {
		w.value("items", s.Items)
	}
	w.int("minItems", s.MinItems)
	w.int("maxItems", s.MaxItems)
	if s.UniqueItems {
		w.raw("uniqueItems", "true")
	}
	w.num("minimum", s.Minimum)
	w.num("maximum", s.Maximum)
	w.num("exclusiveMinimum", s.ExclusiveMinimum)
	w.num("exclusiveMaximum", s.ExclusiveMaximum)
	w.num("multipleOf", s.MultipleOf)
	w.int("minLength", s.MinLength)
	w.int("maxLength", s.MaxLength)
	w.str("pattern", s.Pattern)
	w.str("format", s.Format)
	if s.Enum != nil {
		w.value("enum", s.Enum)
	}
	if len(s.AnyOf) > 0 {
		w.value("anyOf", s.AnyOf)
	}
	if len(s.OneOf) > 0 {
		w.value("oneOf", s.OneOf)
	}
	if s.Default != nil {
		w.raw("default", string(s.Default))
	}
	if len(s.Examples) > 0 {
		w.value("examples", s.Examples)
	}
	if s.Deprecated {
		w.raw("deprecated", "true")
	}
	b.WriteByte('}')
	return b.Bytes(), w.err
}

// propertyNames returns the property names in writing order.
func (s *Schema) propertyNames() []string {
	names := make([]string, 0, len(s.Properties))
	seen := make(map[string]bool, len(s.Properties))
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !seen[n] {
			names = append(names, n)
			seen[n] = true
		}
	}
	var rest []string
	for n := range s.Properties {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

type writer struct {
	b   *bytes.Buffer
	err error
}

func (w *writer) key(k string) {
	if w.b.Len() > 1 {
		w.b.WriteByte(',')
	}
	w.b.WriteString(`"` + k + `":`)
}

func (w *writer) raw(k, v string) { w.key(k); w.b.WriteString(v) }

func (w *writer) str(k, v string) {
	if v != "" {
		w.key(k)
		w.b.Write(quote(v))
	}
}

func (w *writer) int(k string, v *int) {
	if v != nil {
		w.raw(k, strconv.Itoa(*v))
	}
}

func (w *writer) num(k string, v *float64) {
	if v != nil {
		w.raw(k, formatNumber(*v))
	}
}

func (w *writer) value(k string, v any) {
	data, err := json.Marshal(v)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.raw(k, string(data))
}

// quote returns s as a JSON string.
func quote(s string) []byte {
	data, _ := json.Marshal(s)
	return data
}
