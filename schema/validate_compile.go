package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// kind is the JSON type of a value, or of what a schema wants.
type kind uint8

const (
	kindAny kind = iota
	kindNull
	kindBoolean
	kindNumber
	kindInteger
	kindString
	kindArray
	kindObject
)

// kindOf returns the kind of the JSON value whose first byte is c.
func kindOf(c byte) kind {
	switch c {
	case '{':
		return kindObject
	case '[':
		return kindArray
	case '"':
		return kindString
	case 't', 'f':
		return kindBoolean
	case 'n':
		return kindNull
	}
	return kindNumber
}

// kindNames maps the type keyword's values to kinds.
var kindNames = map[string]kind{
	"": kindAny, "boolean": kindBoolean, "number": kindNumber, "integer": kindInteger,
	"string": kindString, "array": kindArray, "object": kindObject,
}

// node is a compiled [Schema].
type node struct {
	kind     kind
	nullable bool

	props      map[string]*prop
	required   []string // bit i of the seen set stands for required[i]
	closed     bool
	additional *node
	known      string            // the property names, for unknown-property messages
	names      [][]byte          // the property names, to find one differing only in case
	folded     map[string][]byte // the names by [foldName], when there are many
	defaults   []propDefault

	items              *node
	minItems, maxItems int // -1 when absent
	unique             bool

	numeric          bool // any number keyword is set
	minimum, maximum *float64
	exclMin, exclMax *float64
	multipleOf       *float64

	minLength, maxLength int // -1 when absent
	pattern              *regexp.Regexp
	format               *formatRule

	enum     [][]byte
	enumText string
}

// prop is what an object node knows of one property name.
type prop struct {
	node *node // nil for a required name that is not a property
	bit  int   // index in node.required, or -1
	dflt int   // index in node.defaults, or -1
}

// propDefault is a property's default, filled in when it is absent.
type propDefault struct {
	member []byte // "name":value, ready to insert
	value  []byte // the value, compact
}

// compiler turns a Schema graph into nodes, sharing the node of a Schema
// reached twice (so that cyclic graphs compile).
type compiler struct {
	nodes map[*Schema]*node
	// defaults are checked against their own schemas once every node is
	// compiled.
	defaults []pendingDefault
}

type pendingDefault struct {
	node  *node
	value []byte
	where string
}

func (c *compiler) compile(s *Schema, where string) (*node, error) {
	if n, ok := c.nodes[s]; ok {
		return n, nil
	}
	if err := uncheckable(s, where); err != nil {
		return nil, err
	}
	k, ok := kindNames[s.Type]
	if !ok {
		return nil, compileErr(where, "unknown type %q", s.Type)
	}
	n := &node{kind: k, nullable: s.Nullable, closed: s.Closed}
	c.nodes[s] = n
	if err := c.object(n, s, where); err != nil {
		return nil, err
	}
	if err := c.array(n, s, where); err != nil {
		return nil, err
	}
	if err := compileNumber(n, s, where); err != nil {
		return nil, err
	}
	if err := compileString(n, s, where); err != nil {
		return nil, err
	}
	return n, compileEnum(n, s, where)
}

// uncheckable refuses the keywords a Schema writes but the validator does
// not check, so that no schema is taken for checked when part of it is not.
func uncheckable(s *Schema, where string) error {
	kw := ""
	switch {
	case len(s.Types) > 0:
		kw = "a list of types (use Type, and Nullable for null)"
	case len(s.AnyOf) > 0:
		kw = "anyOf"
	case len(s.OneOf) > 0:
		kw = "oneOf"
	default:
		return nil
	}
	return compileErr(where, "the validator does not check %s: a schema that holds it can only be sent as it is, as raw JSON", kw)
}

func (c *compiler) object(n *node, s *Schema, where string) error {
	if len(s.Properties) > 0 || len(s.Required) > 0 {
		n.props = make(map[string]*prop, len(s.Properties)+len(s.Required))
	}
	names := s.propertyNames()
	for _, name := range names {
		sub, err := c.compile(orEmpty(s.Properties[name]), joinWhere(where, name))
		if err != nil {
			return err
		}
		p := &prop{node: sub, bit: -1, dflt: -1}
		n.props[name] = p
		n.names = append(n.names, []byte(name))
		if d := s.Properties[name]; d != nil && d.Default != nil {
			if err := c.propertyDefault(n, p, name, d.Default, joinWhere(where, name)); err != nil {
				return err
			}
		}
	}
	for _, name := range s.Required {
		p := n.props[name]
		if p == nil {
			p = &prop{bit: -1, dflt: -1}
			n.props[name] = p
		}
		if p.bit < 0 {
			p.bit = len(n.required)
			n.required = append(n.required, name)
		}
	}
	n.known = strings.Join(names, ", ")
	if len(n.names) > foldScanMax {
		n.folded = make(map[string][]byte, len(n.names))
		for _, name := range n.names {
			n.folded[foldName(name)] = name
		}
	}
	if s.AdditionalProperties != nil && !s.Closed {
		sub, err := c.compile(s.AdditionalProperties, joinWhere(where, "additionalProperties"))
		if err != nil {
			return err
		}
		n.additional = sub
	}
	return nil
}

// propertyDefault records the default of property name of n.
func (c *compiler) propertyDefault(n *node, p *prop, name string, raw []byte, where string) error {
	if !json.Valid(raw) {
		return compileErr(where, "default is not JSON")
	}
	value := compactJSON(raw)
	member := appendQuoted(nil, []byte(name))
	member = append(append(member, ':'), value...)
	p.dflt = len(n.defaults)
	n.defaults = append(n.defaults, propDefault{member: member, value: value})
	c.defaults = append(c.defaults, pendingDefault{node: p.node, value: value, where: where})
	return nil
}

// checkDefaults refuses a default that its own schema refuses: the
// validator fills defaults in, so such a default would break every call
// that leaves the property out.
func (c *compiler) checkDefaults() error {
	for _, d := range c.defaults {
		st := &state{}
		st.reset(d.value, Strict)
		st.noEdit = true
		st.check(d.node, 0)
		if len(st.errs) > 0 {
			return compileErr(d.where, "default %s does not fit the schema: %s", d.value, st.errs.Error())
		}
	}
	return nil
}

// implyDefaults gives an optional object property that has no default of
// its own the object of its properties' defaults, when there is one and it
// is valid: {"price":{"max":1000}} for an absent price whose max defaults
// to 1000. Without it, a model that leaves out the parent (as the schema
// allows) would get none of the defaults the schema publishes for its
// children. The implied values are worked out first, from the explicit
// defaults only, once per node, and then recorded; an implied value over
// [maxImplied] bytes is not recorded (it would be copied into every call).
func (c *compiler) implyDefaults() {
	type implied struct {
		n     *node
		p     *prop
		name  []byte
		value []byte
	}
	var found []implied
	memo := map[*node][]byte{}
	for _, n := range c.nodes {
		for _, name := range n.names {
			p := n.props[string(name)]
			if p.dflt >= 0 || p.bit >= 0 || p.node == nil || p.node.kind != kindObject || reaches(p.node, n, map[*node]bool{}) {
				continue // a recursive property implies nothing: it would grow a tree nobody asked for
			}
			if value, _ := impliedValue(p.node, map[*node]bool{}, memo); value != nil {
				found = append(found, implied{n, p, name, value})
			}
		}
	}
	for _, f := range found {
		member := appendQuoted(nil, f.name)
		f.p.dflt = len(f.n.defaults)
		f.n.defaults = append(f.n.defaults, propDefault{member: append(append(member, ':'), f.value...), value: f.value})
	}
}

// maxImplied is the largest default [compiler.implyDefaults] implies.
const maxImplied = 4 << 10

// reaches reports whether target is from, or the node of a property of
// from, at any depth.
func reaches(from, target *node, seen map[*node]bool) bool {
	if from == target {
		return true
	}
	if seen[from] {
		return false
	}
	seen[from] = true
	for _, p := range from.props {
		if p.node != nil && reaches(p.node, target, seen) {
			return true
		}
	}
	return from.items != nil && reaches(from.items, target, seen) || from.additional != nil && reaches(from.additional, target, seen)
}

// impliedValue returns the object of n's properties' defaults, explicit or
// implied, or nil when none of them has one, when it would not be valid (a
// required property has no default) or when it is over [maxImplied]
// bytes. A schema met again while building it (a recursive one) implies
// nothing there, and cut reports that it was met: such a value depends on
// the path, so it is not memoized. memo holds the values of the nodes
// already worked out, so that a subschema shared by many properties costs
// its work once.
func impliedValue(n *node, seen map[*node]bool, memo map[*node][]byte) (value []byte, cut bool) {
	if n.kind != kindObject {
		return nil, false
	}
	if seen[n] {
		return nil, true
	}
	if v, ok := memo[n]; ok {
		return v, false
	}
	seen[n] = true
	defer delete(seen, n)
	var b []byte
	for _, name := range n.names {
		p := n.props[string(name)]
		var v []byte
		switch {
		case p.dflt >= 0:
			v = n.defaults[p.dflt].value
		case p.bit < 0 && p.node != nil:
			var subCut bool
			v, subCut = impliedValue(p.node, seen, memo)
			cut = cut || subCut
		}
		if v == nil {
			continue
		}
		if b == nil {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		if b = append(append(appendQuoted(b, name), ':'), v...); len(b) > maxImplied {
			break
		}
	}
	if b != nil {
		b = append(b, '}')
		st := &state{}
		st.reset(b, Strict)
		st.noEdit = true
		if st.check(n, 0); len(st.errs) > 0 || len(b) > maxImplied {
			b = nil
		}
	}
	if !cut {
		memo[n] = b
	}
	return b, cut
}

func (c *compiler) array(n *node, s *Schema, where string) error {
	n.minItems, n.maxItems, n.unique = count(s.MinItems), count(s.MaxItems), s.UniqueItems
	if n.minItems < -1 || n.maxItems < -1 || (s.MinItems != nil && *s.MinItems < 0) || (s.MaxItems != nil && *s.MaxItems < 0) {
		return compileErr(where, "minItems and maxItems must not be negative")
	}
	if s.Items != nil {
		sub, err := c.compile(s.Items, where+"[]")
		if err != nil {
			return err
		}
		n.items = sub
	}
	return nil
}

func compileNumber(n *node, s *Schema, where string) error {
	n.minimum, n.maximum = s.Minimum, s.Maximum
	n.exclMin, n.exclMax = s.ExclusiveMinimum, s.ExclusiveMaximum
	n.multipleOf = s.MultipleOf
	for _, p := range []*float64{n.minimum, n.maximum, n.exclMin, n.exclMax, n.multipleOf} {
		if p != nil {
			n.numeric = true
			if math.IsNaN(*p) || math.IsInf(*p, 0) {
				return compileErr(where, "number keywords must be finite")
			}
		}
	}
	if n.multipleOf != nil && *n.multipleOf <= 0 {
		return compileErr(where, "multipleOf must be greater than 0")
	}
	return nil
}

func compileString(n *node, s *Schema, where string) error {
	n.minLength, n.maxLength = count(s.MinLength), count(s.MaxLength)
	if (s.MinLength != nil && *s.MinLength < 0) || (s.MaxLength != nil && *s.MaxLength < 0) {
		return compileErr(where, "minLength and maxLength must not be negative")
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return compileErr(where, "pattern: %v", err)
		}
		n.pattern = re
	}
	n.format = formatRules[s.Format]
	return nil
}

func compileEnum(n *node, s *Schema, where string) error {
	if s.Enum == nil {
		return nil
	}
	n.enum = make([][]byte, len(s.Enum))
	texts := make([]string, len(s.Enum))
	for i, raw := range s.Enum {
		if !json.Valid(raw) {
			return compileErr(where, "enum value %d is not JSON", i)
		}
		n.enum[i] = compactJSON(raw)
		texts[i] = string(n.enum[i])
	}
	n.enumText = strings.Join(texts, ", ")
	return nil
}

func compileErr(where, format string, args ...any) error {
	if where == "" {
		return fmt.Errorf("schema: "+format, args...)
	}
	return fmt.Errorf("schema: %s: "+format, append([]any{where}, args...)...)
}

func joinWhere(where, name string) string {
	if where == "" {
		return name
	}
	return where + "." + name
}

func count(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func orEmpty(s *Schema) *Schema {
	if s == nil {
		return &Schema{}
	}
	return s
}

// admitsKind reports whether n's type accepts an object or array of kind k.
func (n *node) admitsKind(k kind) bool {
	return n.kind == kindAny || n.kind == k
}

// admits reports whether n's type accepts the value raw of kind k.
func (n *node) admits(k kind, raw []byte) bool {
	switch {
	case n.kind == kindAny, k == n.kind:
		return true
	case k == kindNull:
		return n.nullable
	case n.kind == kindNumber:
		return k == kindNumber
	case n.kind == kindInteger:
		return k == kindNumber && isIntegral(raw)
	}
	return false
}

// isIntegral reports whether a number literal has no fractional part.
func isIntegral(lit []byte) bool {
	if !bytes.ContainsAny(lit, ".eE") {
		return true
	}
	f, ok := parseFloatBytes(lit)
	return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// inEnum reports whether raw equals one of n's enum values.
func (n *node) inEnum(raw []byte) bool {
	for _, e := range n.enum {
		if equalJSON(raw, e) {
			return true
		}
	}
	return false
}

// segment is one step of a path: a property name or an array index.
type segment struct {
	key   []byte // the property name as it appears in the document
	name  string // the property name, when key is nil
	index int    // the array index, or -1 for a property
}

// renderPath writes a path in the form items[2].sku.
func renderPath(path []segment) string {
	var b strings.Builder
	for _, seg := range path {
		if seg.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(seg.index))
			b.WriteByte(']')
			continue
		}
		name := seg.name
		if seg.key != nil {
			name = string(seg.key)
		}
		if !isPlainName(name) {
			b.WriteString("[" + strconv.Quote(name) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(name)
	}
	return b.String()
}
