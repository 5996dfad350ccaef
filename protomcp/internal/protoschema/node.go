package protoschema

import (
	"bytes"
	"encoding/json"
)

// node is one JSON Schema object. Its fields are the keywords this package
// writes, in the order they are written; empty fields are left out.
type node struct {
	Type                 types             `json:"type,omitempty"`
	Description          string            `json:"description,omitempty"`
	Properties           properties        `json:"properties,omitempty"`
	Required             []string          `json:"required,omitempty"`
	AdditionalProperties any               `json:"additionalProperties,omitempty"` // *node, or false
	PropertyNames        *node             `json:"propertyNames,omitempty"`
	MinProperties        *uint64           `json:"minProperties,omitempty"`
	MaxProperties        *uint64           `json:"maxProperties,omitempty"`
	Items                *node             `json:"items,omitempty"`
	MinItems             *uint64           `json:"minItems,omitempty"`
	MaxItems             *uint64           `json:"maxItems,omitempty"`
	UniqueItems          bool              `json:"uniqueItems,omitempty"`
	Minimum              json.Number       `json:"minimum,omitempty"`
	ExclusiveMinimum     json.Number       `json:"exclusiveMinimum,omitempty"`
	Maximum              json.Number       `json:"maximum,omitempty"`
	ExclusiveMaximum     json.Number       `json:"exclusiveMaximum,omitempty"`
	MinLength            *uint64           `json:"minLength,omitempty"`
	MaxLength            *uint64           `json:"maxLength,omitempty"`
	Pattern              string            `json:"pattern,omitempty"`
	Format               string            `json:"format,omitempty"`
	ContentEncoding      string            `json:"contentEncoding,omitempty"`
	Const                json.RawMessage   `json:"const,omitempty"`
	Enum                 []any             `json:"enum,omitempty"`
	Not                  *node             `json:"not,omitempty"`
	AnyOf                []*node           `json:"anyOf,omitempty"`
	OneOf                []*node           `json:"oneOf,omitempty"`
	AllOf                []*node           `json:"allOf,omitempty"`
	Default              json.RawMessage   `json:"default,omitempty"`
	Examples             []json.RawMessage `json:"examples,omitempty"`
	Deprecated           bool              `json:"deprecated,omitempty"`

	// notes are sentences for rules that have no keyword; they end up in
	// Description.
	notes []string
}

// types is the value of the type keyword: one name is written as a
// string, more as an array.
type types []string

// MarshalJSON implements [json.Marshaler].
func (t types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// property is one member of the properties keyword.
type property struct {
	name   string
	schema *node
}

// properties keeps the properties in declaration order.
type properties []property

// MarshalJSON implements [json.Marshaler].
func (ps properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(p.name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		data, err := marshal(p.schema)
		if err != nil {
			return nil, err
		}
		b.Write(data)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// addPattern adds a pattern the value must match: the first goes in the
// pattern keyword, later ones in allOf, since a schema holds one pattern.
func (n *node) addPattern(p string) {
	if n.Pattern == "" {
		n.Pattern = p
		return
	}
	n.AllOf = append(n.AllOf, &node{Pattern: p})
}

// addNot adds a schema the value must not match.
func (n *node) addNot(s *node) {
	if n.Not == nil {
		n.Not = s
		return
	}
	n.AllOf = append(n.AllOf, &node{Not: s})
}

// note adds a sentence to the description.
func (n *node) note(format string) { n.notes = append(n.notes, format) }

// nullable also allows null.
func (n *node) nullable() {
	if len(n.Type) > 0 {
		n.Type = append(n.Type, "null")
	}
}

func uptr(v uint64) *uint64 { return &v }

// marshal is json.Marshal without HTML escaping: descriptions read better
// with < > & as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
