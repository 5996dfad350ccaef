package openapi

import (
	"encoding/json"
	"slices"

	"github.com/ferry-mcp/ferry/schema"
)

// node is a JSON Schema (draft 2020-12) as the converter builds it: the
// keywords of [schema.Schema], with its properties in a list and its type
// a list of names, as allOf merges them. Every $ref is inlined, every
// allOf merged; [node.schema] turns it into the Schema a tool sends.
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

// checked reports whether the server can check values against n: it
// holds no anyOf, no oneOf and no list of types, anywhere.
func (n *node) checked() bool {
	if len(n.anyOf) > 0 || len(n.oneOf) > 0 {
		return false
	}
	if typ, _ := n.single(); typ == "" && len(n.types) > 0 {
		return false // several types, or only null
	}
	for _, p := range n.props {
		if !p.n.checked() {
			return false
		}
	}
	return (n.additional == nil || n.additional.checked()) && (n.items == nil || n.items.checked())
}

// schema returns n as a [schema.Schema]: the one the server compiles and
// checks every call's arguments against when n is [node.checked], else
// the one marshalled and sent as it is, whose arguments the service alone
// checks.
func (n *node) schema() *schema.Schema {
	s := &schema.Schema{Title: n.title, Description: n.description,
		Default: n.def, Examples: n.examples, Deprecated: n.deprecated, Required: n.required, Closed: n.closed,
		MinItems: n.minItems, MaxItems: n.maxItems, UniqueItems: n.unique,
		Minimum: n.minimum, Maximum: n.maximum, ExclusiveMinimum: n.exclMin, ExclusiveMaximum: n.exclMax, MultipleOf: n.multipleOf,
		MinLength: n.minLength, MaxLength: n.maxLength, Pattern: n.pattern, Format: n.format, Enum: n.enum}
	if typ, nullable := n.single(); typ != "" {
		s.Type, s.Nullable = typ, nullable
	} else {
		s.Types = n.types // several types, or only null
	}
	if len(n.props) > 0 {
		s.Properties = make(map[string]*schema.Schema, len(n.props))
		for _, p := range n.props {
			s.Properties[p.name] = p.n.schema()
			s.PropertyOrder = append(s.PropertyOrder, p.name)
		}
	}
	if n.additional != nil {
		s.AdditionalProperties = n.additional.schema()
	}
	if n.items != nil {
		s.Items = n.items.schema()
	}
	s.AnyOf, s.OneOf = schemas(n.anyOf), schemas(n.oneOf)
	return s
}

// schemas returns ns as [schema.Schema] values, or nil when ns is empty.
func schemas(ns []*node) []*schema.Schema {
	if len(ns) == 0 {
		return nil
	}
	out := make([]*schema.Schema, len(ns))
	for i, n := range ns {
		out[i] = n.schema()
	}
	return out
}
