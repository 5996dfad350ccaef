package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// Bounds on one schema's conversion.
const (
	// DefaultMaxRecursion is how many times a schema may hold itself
	// (a tree node's children, a comment's replies) before it is cut, when
	// [Options.MaxRecursion] is zero.
	DefaultMaxRecursion = 2
	// maxDepth bounds the nesting of a schema, recursive or not.
	maxDepth = 32
	// maxNodes bounds the subschemas of one tool's input or output
	// schema, so that a document whose references fan out cannot make a
	// schema of millions of nodes.
	maxNodes = 20000
)

// converter turns the schemas of one operation into tool schemas: every
// $ref inlined, allOf merged, recursion cut, and what it leaves out or
// changes noted.
type converter struct {
	maxRecursion int
	output       bool     // an output schema: writeOnly properties are left out, not readOnly ones
	ownHeaders   []string // canonical headers the binding sets, which no argument fills
	notes        []string
	problems     []string
	stack        []*yaml.Node // the schemas being converted, innermost last
	nodes        int
}

// note records what the conversion changed at path.
func (c *converter) note(path, format string, args ...any) {
	c.notes = append(c.notes, at(path)+fmt.Sprintf(format, args...))
}

// problem records what makes the operation impossible to serve.
func (c *converter) problem(path, format string, args ...any) {
	c.problems = append(c.problems, at(path)+fmt.Sprintf(format, args...))
}

// at is the "path: " a note starts with.
func at(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// proxy converts the schema sp holds, at path.
func (c *converter) proxy(sp *base.SchemaProxy, path string) *node {
	if sp == nil {
		return &node{}
	}
	s, err := sp.BuildSchema()
	if err != nil || s == nil {
		what := "the schema cannot be read"
		if ref := sp.GetReference(); ref != "" {
			what = "$ref " + ref + " cannot be resolved"
		}
		if err != nil {
			what += ": " + err.Error()
		}
		c.problem(path, "%s", what)
		return &node{}
	}
	if c.nodes++; c.nodes > maxNodes {
		if c.nodes == maxNodes+1 {
			c.problem(path, "the schema has more than %d subschemas: select fewer operations' fields, or simplify it", maxNodes)
		}
		return &node{}
	}
	id := identity(sp)
	if id != nil {
		if n := countOf(c.stack, id); n >= c.maxRecursion {
			c.note(path, "%s holds itself; cut after %d levels, below which its fields are not described", refName(sp), c.maxRecursion)
			return cutNode(s, "The same schema as above, "+refName(sp)+", cut here: it holds itself.")
		}
	}
	if len(c.stack) >= maxDepth {
		c.note(path, "nested deeper than %d levels; cut, and not described below", maxDepth)
		return cutNode(s, "Cut here: nested too deep.")
	}
	c.stack = append(c.stack, id)
	defer func() { c.stack = c.stack[:len(c.stack)-1] }()
	return c.schema(s, path)
}

// identity is what tells a schema from others: the node it was read
// from, the same for every $ref to it.
func identity(sp *base.SchemaProxy) *yaml.Node {
	if low := sp.GoLow(); low != nil {
		return low.GetValueNode()
	}
	return nil
}

func countOf(stack []*yaml.Node, id *yaml.Node) int {
	n := 0
	for _, s := range stack {
		if s == id {
			n++
		}
	}
	return n
}

// refName names a schema in a note: its $ref, or "the schema".
func refName(sp *base.SchemaProxy) string {
	if ref := sp.GetReference(); ref != "" {
		return ref
	}
	return "the schema"
}

// cutNode is what stands for a schema cut: any value of its type.
func cutNode(s *base.Schema, why string) *node {
	n := &node{description: why}
	if len(s.Type) == 1 {
		n.types = slices.Clone(s.Type)
	}
	return n
}

// schema converts s, at path.
func (c *converter) schema(s *base.Schema, path string) *node {
	if s.BooleanSchema != nil {
		if !*s.BooleanSchema {
			c.problem(path, "the schema is false: no value is valid")
		}
		return &node{}
	}
	n := &node{types: slices.Clone(s.Type), title: s.Title, format: s.Format, pattern: s.Pattern}
	n.description = c.text(s.Description, path)
	if s.Nullable != nil && *s.Nullable && len(n.types) > 0 && !slices.Contains(n.types, "null") {
		n.types = append(n.types, "null")
	}
	n.deprecated = s.Deprecated != nil && *s.Deprecated
	c.values(n, s, path)
	c.numbers(n, s)
	n.minLength, n.maxLength = intOf(s.MinLength), intOf(s.MaxLength)
	n.minItems, n.maxItems = intOf(s.MinItems), intOf(s.MaxItems)
	n.unique = s.UniqueItems != nil && *s.UniqueItems
	c.object(n, s, path)
	if s.Items != nil && s.Items.IsA() {
		n.items = c.proxy(s.Items.A, path+"[]")
	}
	for i, sp := range s.AnyOf {
		n.anyOf = append(n.anyOf, c.proxy(sp, fmt.Sprintf("%s.anyOf[%d]", path, i)))
	}
	for i, sp := range s.OneOf {
		n.oneOf = append(n.oneOf, c.proxy(sp, fmt.Sprintf("%s.oneOf[%d]", path, i)))
	}
	c.dropped(s, path)
	for i, sp := range s.AllOf {
		c.merge(n, c.proxy(sp, fmt.Sprintf("%s.allOf[%d]", path, i)), path)
	}
	return n
}

// text returns a description, cut to what every client accepts.
func (c *converter) text(s, path string) string {
	if utf8.RuneCountInString(s) <= schema.MaxDescription {
		return s
	}
	c.note(path, "description cut to %d characters", schema.MaxDescription)
	return cut(s, schema.MaxDescription)
}

// cut cuts s to n characters, the last an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// values reads enum, const, default and the examples.
func (c *converter) values(n *node, s *base.Schema, path string) {
	for _, v := range s.Enum {
		if raw := c.value(v, path, "enum"); raw != nil {
			n.enum = append(n.enum, raw)
		}
	}
	if s.Const != nil {
		if raw := c.value(s.Const, path, "const"); raw != nil {
			n.enum = []json.RawMessage{raw} // const is a one-value enum, which every client reads
		}
	}
	if s.Default != nil {
		n.def = c.value(s.Default, path, "default")
	}
	for _, v := range s.Examples {
		if raw := c.value(v, path, "examples"); raw != nil {
			n.examples = append(n.examples, raw)
		}
	}
	if len(n.examples) == 0 && s.Example != nil {
		if raw := c.value(s.Example, path, "example"); raw != nil {
			n.examples = []json.RawMessage{raw}
		}
	}
}

// value returns the JSON of a YAML value, or nil with a note.
func (c *converter) value(v *yaml.Node, path, keyword string) json.RawMessage {
	raw, err := yamlJSON(v)
	if err != nil {
		c.note(path, "%s left out: %v", keyword, err)
		return nil
	}
	return raw
}

// yamlJSON writes a YAML value as JSON.
func yamlJSON(v *yaml.Node) (json.RawMessage, error) {
	var x any
	if err := v.Decode(&x); err != nil {
		return nil, err
	}
	x, err := jsonable(x)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// jsonable turns what YAML decodes into what encoding/json writes: maps
// with string keys.
func jsonable(x any) (any, error) {
	switch v := x.(type) {
	case map[string]any:
		for k, e := range v {
			j, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			v[k] = j
		}
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			j, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = j
		}
		return m, nil
	case []any:
		for i, e := range v {
			j, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			v[i] = j
		}
	}
	return x, nil
}

// numbers reads the numeric keywords, 3.0's boolean exclusive bounds
// written as 3.1's numbers.
func (c *converter) numbers(n *node, s *base.Schema) {
	n.minimum, n.maximum, n.multipleOf = clone(s.Minimum), clone(s.Maximum), clone(s.MultipleOf)
	if e := s.ExclusiveMinimum; e != nil {
		switch {
		case e.IsB():
			n.exclMin = &e.B
		case e.A && n.minimum != nil:
			n.exclMin, n.minimum = n.minimum, nil
		}
	}
	if e := s.ExclusiveMaximum; e != nil {
		switch {
		case e.IsB():
			n.exclMax = &e.B
		case e.A && n.maximum != nil:
			n.exclMax, n.maximum = n.maximum, nil
		}
	}
}

func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func intOf(p *int64) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// object reads the object keywords: properties (without those a request
// or an answer does not carry: readOnly in an input, writeOnly in an
// output), required, additionalProperties.
func (c *converter) object(n *node, s *base.Schema, path string) {
	if s.Properties != nil {
		for name, sp := range s.Properties.FromOldest() {
			if c.skipProperty(sp) {
				continue
			}
			n.props = append(n.props, property{name: name, n: c.proxy(sp, joinPath(path, name))})
		}
	}
	for _, r := range s.Required {
		if n.prop(r) != nil || s.Properties == nil || s.Properties.GetOrZero(r) == nil {
			n.required = append(n.required, r)
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case ap.IsB() && !ap.B:
			n.closed = true
		case ap.IsA() && ap.A != nil:
			n.additional = c.proxy(ap.A, path+".*")
		}
	}
}

// skipProperty reports whether a property is left out: readOnly in an
// input (the service sets it), writeOnly in an output.
func (c *converter) skipProperty(sp *base.SchemaProxy) bool {
	s, err := sp.BuildSchema()
	if err != nil || s == nil {
		return false
	}
	if c.output {
		return s.WriteOnly != nil && *s.WriteOnly
	}
	return s.ReadOnly != nil && *s.ReadOnly
}

// joinPath is path and a property name, as notes write it.
func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// dropped notes the keywords a tool schema leaves out: they only narrow
// what is valid, and the service still checks them.
func (c *converter) dropped(s *base.Schema, path string) {
	var kws []string
	add := func(ok bool, kw string) {
		if ok {
			kws = append(kws, kw)
		}
	}
	add(s.Not != nil, "not")
	add(s.If != nil || s.Then != nil || s.Else != nil, "if/then/else")
	add(s.PatternProperties != nil && s.PatternProperties.Len() > 0, "patternProperties")
	add(s.DependentSchemas != nil && s.DependentSchemas.Len() > 0, "dependentSchemas")
	add(s.DependentRequired != nil && s.DependentRequired.Len() > 0, "dependentRequired")
	add(s.PropertyNames != nil, "propertyNames")
	add(s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil, "unevaluated*")
	add(s.Contains != nil, "contains")
	add(len(s.PrefixItems) > 0, "prefixItems")
	add(s.MinProperties != nil || s.MaxProperties != nil, "minProperties/maxProperties")
	add(s.DynamicRef != "", "$dynamicRef")
	if len(kws) > 0 {
		c.note(path, "%s left out: the tool's schema does not check %s; the service does", strings.Join(kws, ", "), plural(len(kws), "it", "them"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// merge adds src, a member of dst's allOf, to dst: properties and
// required joined, types intersected, the stricter bounds kept, and
// dst's own words first.
func (c *converter) merge(dst, src *node, path string) {
	c.mergeTypes(dst, src, path)
	for _, p := range src.props {
		if q := dst.prop(p.name); q != nil {
			c.merge(q, p.n, joinPath(path, p.name))
			continue
		}
		dst.props = append(dst.props, p)
	}
	for _, r := range src.required {
		if !dst.isRequired(r) {
			dst.required = append(dst.required, r)
		}
	}
	dst.closed = dst.closed || src.closed
	dst.deprecated = dst.deprecated || src.deprecated
	dst.unique = dst.unique || src.unique
	orNode(&dst.additional, src.additional)
	if dst.items != nil && src.items != nil {
		c.merge(dst.items, src.items, path+"[]")
	}
	orNode(&dst.items, src.items)
	orString(&dst.title, src.title)
	orString(&dst.description, src.description)
	orString(&dst.format, src.format)
	orString(&dst.pattern, src.pattern)
	if dst.def == nil {
		dst.def = src.def
	}
	if dst.examples == nil {
		dst.examples = src.examples
	}
	dst.minimum, dst.exclMin = higher(dst.minimum, src.minimum), higher(dst.exclMin, src.exclMin)
	dst.maximum, dst.exclMax = lower(dst.maximum, src.maximum), lower(dst.exclMax, src.exclMax)
	if dst.multipleOf == nil {
		dst.multipleOf = src.multipleOf
	}
	dst.minLength, dst.minItems = higherInt(dst.minLength, src.minLength), higherInt(dst.minItems, src.minItems)
	dst.maxLength, dst.maxItems = lowerInt(dst.maxLength, src.maxLength), lowerInt(dst.maxItems, src.maxItems)
	c.mergeEnums(dst, src, path)
	c.mergeAlternatives(dst, src, path)
}

// mergeTypes intersects the types of an allOf's members.
func (c *converter) mergeTypes(dst, src *node, path string) {
	switch {
	case len(src.types) == 0:
	case len(dst.types) == 0:
		dst.types = slices.Clone(src.types)
	default:
		var both []string
		for _, t := range dst.types {
			switch {
			case slices.Contains(src.types, t):
				both = append(both, t)
			case t == "number" && slices.Contains(src.types, "integer"):
				both = append(both, "integer")
			case t == "integer" && slices.Contains(src.types, "number"):
				both = append(both, "integer")
			}
		}
		if len(both) == 0 {
			c.problem(path, "the members of allOf have no type in common (%s and %s): no value is valid", strings.Join(dst.types, ", "), strings.Join(src.types, ", "))
		}
		dst.types = both
	}
}

// mergeEnums keeps the values both enums allow.
func (c *converter) mergeEnums(dst, src *node, path string) {
	switch {
	case src.enum == nil:
	case dst.enum == nil:
		dst.enum = src.enum
	default:
		dst.enum = slices.DeleteFunc(dst.enum, func(v json.RawMessage) bool {
			return !slices.ContainsFunc(src.enum, func(w json.RawMessage) bool { return string(v) == string(w) })
		})
		if len(dst.enum) == 0 {
			c.problem(path, "the members of allOf allow no value in common")
		}
	}
}

// mergeAlternatives keeps one anyOf and one oneOf: a second of either is
// left out, with a note.
func (c *converter) mergeAlternatives(dst, src *node, path string) {
	for _, k := range []struct {
		name     string
		dst, src *[]*node
	}{{"anyOf", &dst.anyOf, &src.anyOf}, {"oneOf", &dst.oneOf, &src.oneOf}} {
		switch {
		case len(*k.src) == 0:
		case len(*k.dst) == 0:
			*k.dst = *k.src
		default:
			c.note(path, "allOf joins two %s lists; the second is left out (the service checks it)", k.name)
		}
	}
}

func orNode(dst **node, src *node) {
	if *dst == nil {
		*dst = src
	}
}

func orString(dst *string, src string) {
	if *dst == "" {
		*dst = src
	}
}

func higher(a, b *float64) *float64 {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

func lower(a, b *float64) *float64 {
	if a == nil || b != nil && *b < *a {
		return b
	}
	return a
}

func higherInt(a, b *int) *int {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

func lowerInt(a, b *int) *int {
	if a == nil || b != nil && *b < *a {
		return b
	}
	return a
}
