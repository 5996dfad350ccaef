package openapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/ferry-mcp/ferry/schema"
)

// node is a JSON Schema (draft 2020-12) as a tool's schema holds it: the
// keywords of [schema.Schema], and the few more that OpenAPI documents use
// and clients accept below the root (anyOf, oneOf, a list of types).
// Every $ref is inlined, every allOf merged.
type node struct {
	types       []string // "object", ..., "null"; empty for any
	title       string
	description string
	def         json.RawMessage
	examples    []json.RawMessage
	deprecated  bool

	props      []property
	required   []string
	closed     bool
	additional *node

	items              *node
	minItems, maxItems *int
	unique             bool

	minimum, maximum, exclMin, exclMax, multipleOf *float64

	minLength, maxLength *int
	pattern, format      string

	enum  []json.RawMessage
	anyOf []*node
	oneOf []*node
}

// property is one property of an object node.
type property struct {
	name string
	n    *node
}

// prop returns the property called name, or nil.
func (n *node) prop(name string) *node {
	for _, p := range n.props {
		if p.name == name {
			return p.n
		}
	}
	return nil
}

// is reports whether n's type is exactly typ, or typ and null.
func (n *node) is(typ string) bool {
	t, _ := n.single()
	return t == typ
}

// single returns n's type when it has one, besides null, and whether
// null is allowed too.
func (n *node) single() (typ string, nullable bool) {
	for _, t := range n.types {
		switch {
		case t == "null":
			nullable = true
		case typ != "":
			return "", nullable
		default:
			typ = t
		}
	}
	return typ, nullable
}

// isRequired reports whether name is required.
func (n *node) isRequired(name string) bool { return slices.Contains(n.required, name) }

// MarshalJSON writes n, keywords in a fixed order and properties in
// theirs.
func (n *node) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	n.write(&b)
	return b.Bytes(), nil
}

// write appends n's JSON to b.
func (n *node) write(b *bytes.Buffer) {
	w := jsonWriter{b: b}
	b.WriteByte('{')
	switch len(n.types) {
	case 0:
	case 1:
		w.str("type", n.types[0])
	default:
		w.key("type")
		writeStrings(b, n.types)
	}
	w.str("title", n.title)
	w.str("description", n.description)
	if len(n.props) > 0 {
		w.key("properties")
		b.WriteByte('{')
		for i, p := range n.props {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(quote(p.name))
			b.WriteByte(':')
			p.n.write(b)
		}
		b.WriteByte('}')
	}
	if len(n.required) > 0 {
		w.key("required")
		writeStrings(b, n.required)
	}
	if n.closed {
		w.raw("additionalProperties", "false")
	} else if n.additional != nil {
		w.key("additionalProperties")
		n.additional.write(b)
	}
	if n.items != nil {
		w.key("items")
		n.items.write(b)
	}
	w.int("minItems", n.minItems)
	w.int("maxItems", n.maxItems)
	if n.unique {
		w.raw("uniqueItems", "true")
	}
	w.num("minimum", n.minimum)
	w.num("maximum", n.maximum)
	w.num("exclusiveMinimum", n.exclMin)
	w.num("exclusiveMaximum", n.exclMax)
	w.num("multipleOf", n.multipleOf)
	w.int("minLength", n.minLength)
	w.int("maxLength", n.maxLength)
	w.str("pattern", n.pattern)
	w.str("format", n.format)
	w.list("enum", n.enum)
	w.schemas("anyOf", n.anyOf)
	w.schemas("oneOf", n.oneOf)
	if n.def != nil {
		w.raw("default", string(n.def))
	}
	w.list("examples", n.examples)
	if n.deprecated {
		w.raw("deprecated", "true")
	}
	b.WriteByte('}')
}

// jsonWriter writes the members of an object, commas between them.
type jsonWriter struct {
	b     *bytes.Buffer
	count int
}

func (w *jsonWriter) key(k string) {
	if w.count > 0 {
		w.b.WriteByte(',')
	}
	w.count++
	w.b.Write(quote(k))
	w.b.WriteByte(':')
}

func (w *jsonWriter) raw(k, v string) { w.key(k); w.b.WriteString(v) }

func (w *jsonWriter) str(k, v string) {
	if v != "" {
		w.key(k)
		w.b.Write(quote(v))
	}
}

func (w *jsonWriter) int(k string, v *int) {
	if v != nil {
		w.raw(k, strconv.Itoa(*v))
	}
}

func (w *jsonWriter) num(k string, v *float64) {
	if v != nil {
		w.raw(k, strconv.FormatFloat(*v, 'g', -1, 64))
	}
}

func (w *jsonWriter) list(k string, vs []json.RawMessage) {
	if vs == nil {
		return
	}
	w.key(k)
	w.b.WriteByte('[')
	for i, v := range vs {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.b.Write(v)
	}
	w.b.WriteByte(']')
}

func (w *jsonWriter) schemas(k string, ns []*node) {
	if len(ns) == 0 {
		return
	}
	w.key(k)
	w.b.WriteByte('[')
	for i, s := range ns {
		if i > 0 {
			w.b.WriteByte(',')
		}
		s.write(w.b)
	}
	w.b.WriteByte(']')
}

func writeStrings(b *bytes.Buffer, ss []string) {
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quote(s))
	}
	b.WriteByte(']')
}

// quote returns s as a JSON string.
func quote(s string) []byte {
	data, _ := json.Marshal(s) // a string always marshals
	return data
}

// ferry returns n as a [schema.Schema], which the server compiles and
// checks every call's arguments against, and false when n holds what a
// schema.Schema cannot (anyOf, oneOf, a list of types): such a schema is
// sent as it is, and the arguments are checked by the service alone.
func (n *node) ferry() (*schema.Schema, bool) {
	if len(n.anyOf) > 0 || len(n.oneOf) > 0 {
		return nil, false
	}
	typ, nullable := n.single()
	if typ == "" && len(n.types) > 0 {
		return nil, false // several types, or only null
	}
	s := &schema.Schema{Type: typ, Nullable: nullable, Title: n.title, Description: n.description,
		Default: n.def, Examples: n.examples, Deprecated: n.deprecated, Required: n.required, Closed: n.closed,
		MinItems: n.minItems, MaxItems: n.maxItems, UniqueItems: n.unique,
		Minimum: n.minimum, Maximum: n.maximum, ExclusiveMinimum: n.exclMin, ExclusiveMaximum: n.exclMax, MultipleOf: n.multipleOf,
		MinLength: n.minLength, MaxLength: n.maxLength, Pattern: n.pattern, Format: n.format, Enum: n.enum}
	if len(n.props) > 0 {
		s.Properties = make(map[string]*schema.Schema, len(n.props))
		for _, p := range n.props {
			ps, ok := p.n.ferry()
			if !ok {
				return nil, false
			}
			s.Properties[p.name] = ps
			s.PropertyOrder = append(s.PropertyOrder, p.name)
		}
	}
	for _, sub := range []struct {
		from *node
		to   **schema.Schema
	}{{n.additional, &s.AdditionalProperties}, {n.items, &s.Items}} {
		if sub.from == nil {
			continue
		}
		ss, ok := sub.from.ferry()
		if !ok {
			return nil, false
		}
		*sub.to = ss
	}
	return s, true
}
