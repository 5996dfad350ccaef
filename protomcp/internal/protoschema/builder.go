package protoschema

import (
	"fmt"
	"strings"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// builder builds one schema. It is not safe for concurrent use.
type builder struct {
	mode      mode
	recursion int
	maxDepth  int
	maxNodes  int
	describe  func(protoreflect.Descriptor) string
	validator protovalidate.Validator             // nil until needed, unless given
	types     protoregistry.ExtensionTypeResolver // the extensions the root's file sees, or nil

	nodes int                           // subschemas built so far
	stack map[protoreflect.FullName]int // messages being expanded, with their count on the path
	depth int                           // len of the path

	implied map[protoreflect.FullName]map[protoreflect.Name]bool // impliedRequired, by message
}

func newBuilder(m mode, opts *Options) *builder {
	var o Options
	if opts != nil {
		o = *opts
	}
	b := &builder{mode: m, recursion: o.Recursion, maxDepth: o.MaxDepth, maxNodes: o.MaxNodes,
		describe: o.Description, validator: o.Validator, stack: map[protoreflect.FullName]int{},
		implied: map[protoreflect.FullName]map[protoreflect.Name]bool{}}
	switch {
	case b.recursion == 0:
		b.recursion = DefaultRecursion
	case b.recursion < 0:
		b.recursion = 0
	}
	if b.maxDepth <= 0 {
		b.maxDepth = DefaultMaxDepth
	}
	if b.maxNodes <= 0 {
		b.maxNodes = DefaultMaxNodes
	}
	if b.describe == nil {
		b.describe = comment
	}
	return b
}

// message returns the schema of a message-typed value.
func (b *builder) message(md protoreflect.MessageDescriptor) (*node, error) {
	if n := wellKnown(md, b.mode); n != nil {
		b.nodes++
		return n, nil
	}
	if cut := b.cut(md); cut != "" {
		return &node{Type: types{"object"}, Description: cut}, nil
	}
	b.stack[md.FullName()]++
	b.depth++
	defer func() {
		b.stack[md.FullName()]--
		b.depth--
	}()
	b.nodes++
	n := &node{Type: types{"object"}, AdditionalProperties: false}
	if md.ExtensionRanges().Len() > 0 {
		n.AdditionalProperties = nil // protojson reads and writes extensions as "[full.name]" members
	}
	msgRules, err := readMessageRules(md)
	if err != nil {
		return nil, err
	}
	present, err := b.properties(n, md)
	if err != nil {
		return nil, err
	}
	b.oneofs(n, md, msgRules, present)
	n.notes = append(n.notes, msgRules.notes()...)
	n.Description = joinDescription(b.describe(md), n.notes)
	n.notes = nil
	return n, nil
}

// properties adds md's fields to n, and the required ones to its required
// list, in declaration order. It returns the fields the schema lists.
func (b *builder) properties(n *node, md protoreflect.MessageDescriptor) (map[protoreflect.Name]bool, error) {
	fields := md.Fields()
	present := map[protoreflect.Name]bool{}
	required := map[protoreflect.Name]bool{}
	for i := range fields.Len() {
		fd := fields.Get(i)
		fb := readFieldBehavior(fd)
		if b.mode == input && fb.outputOnly {
			continue
		}
		present[fd.Name()] = true
		fs, req, err := b.field(fd, fb)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", fd.Name(), err)
		}
		n.Properties = append(n.Properties, property{name: fd.JSONName(), schema: fs})
		required[fd.Name()] = req || fd.Cardinality() == protoreflect.Required
	}
	if b.mode == output {
		return present, nil // protojson leaves unset and zero fields out
	}
	// After the fields, whose own errors say more than protovalidate's.
	implied, err := b.impliedRequired(md)
	if err != nil {
		return nil, err
	}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if present[fd.Name()] && (required[fd.Name()] || implied[fd.Name()]) {
			n.Required = append(n.Required, fd.JSONName())
		}
	}
	return present, nil
}

// impliedRequired returns the fields of md that [zeroBreaksRules] finds,
// once per message.
func (b *builder) impliedRequired(md protoreflect.MessageDescriptor) (map[protoreflect.Name]bool, error) {
	if r, ok := b.implied[md.FullName()]; ok {
		return r, nil
	}
	if !hasFieldRules(md) {
		return nil, nil
	}
	if b.validator == nil {
		var opts []protovalidate.ValidatorOption
		if b.types != nil {
			opts = append(opts, protovalidate.WithExtensionTypeResolver(b.types))
		}
		v, err := protovalidate.New(opts...)
		if err != nil {
			return nil, fmt.Errorf("making a protovalidate validator: %w", err)
		}
		b.validator = v
	}
	r, err := zeroBreaksRules(b.validator, md)
	if err != nil {
		return nil, err
	}
	b.implied[md.FullName()] = r
	return r, nil
}

// cut returns why md is not expanded here, or "".
func (b *builder) cut(md protoreflect.MessageDescriptor) string {
	switch {
	case b.stack[md.FullName()] > b.recursion:
		return fmt.Sprintf("A %s, which contains itself: its fields are not listed at this depth, and are checked when the tool is called.", md.FullName())
	case b.depth >= b.maxDepth:
		return fmt.Sprintf("A %s, nested too deep to list its fields here; they are checked when the tool is called.", md.FullName())
	case b.nodes >= b.maxNodes:
		return fmt.Sprintf("A %s, whose fields are not listed because the schema reached its size limit; they are checked when the tool is called.", md.FullName())
	}
	return ""
}

// field returns the schema of fd's value and whether the field is
// required by its field behavior or its rules.
func (b *builder) field(fd protoreflect.FieldDescriptor, fb fieldBehavior) (*node, bool, error) {
	rules, err := readFieldRules(fd, b.types)
	if err != nil {
		return nil, false, err
	}
	desc := b.describe(fd)
	var n *node
	switch {
	case fd.IsMap():
		n, err = b.mapField(fd, rules)
	case fd.IsList():
		n, err = b.listField(fd, rules)
	default:
		n, err = b.value(fd, rules.elem())
	}
	if err != nil {
		return nil, false, err
	}
	rules.excludeZero(n, b.mode)
	n.Default = defaultJSON(fd)
	n.Deprecated = deprecated(fd)
	n.notes = append(n.notes, rules.notes()...)
	if fb.immutable && b.mode == input {
		n.note("It cannot be changed once set.")
	}
	if fb.outputOnly && b.mode == output {
		n.note("Set by the server.")
	}
	if fb.inputOnly && b.mode == output {
		// Kept, not left out: protojson writes whatever the server set,
		// and every field with EmitDefaultValues.
		n.note("Input only: not meant to be returned.")
	}
	n.Description = joinDescription(desc, n.Description, n.notes)
	return n, fb.required || rules.required(), nil
}

// value returns the schema of one value of fd's type (an element, for a
// repeated field), with the element rules r applied and their sentences in
// its description.
func (b *builder) value(fd protoreflect.FieldDescriptor, r *elemRules) (*node, error) {
	var n *node
	var err error
	if md := fd.Message(); md != nil {
		if n, err = b.message(md); err != nil {
			return nil, err
		}
		err = r.applyMessage(n, md, b.mode)
	} else {
		b.nodes++
		n = scalar(fd, b.mode)
		err = r.applyScalar(n, fd, b.mode)
	}
	if err != nil {
		return nil, err
	}
	n.Description = joinDescription(n.Description, n.notes)
	n.notes = nil
	return n, nil
}

func (b *builder) listField(fd protoreflect.FieldDescriptor, rules *fieldRules) (*node, error) {
	item, err := b.value(fd, rules.items())
	if err != nil {
		return nil, err
	}
	b.nodes++
	n := &node{Type: types{"array"}, Items: item}
	return n, rules.applyRepeated(n, b.mode)
}

func (b *builder) mapField(fd protoreflect.FieldDescriptor, rules *fieldRules) (*node, error) {
	val, err := b.value(fd.MapValue(), rules.mapValues())
	if err != nil {
		return nil, err
	}
	b.nodes++
	n := &node{Type: types{"object"}, AdditionalProperties: val}
	n.PropertyNames = mapKey(fd.MapKey())
	if err := rules.mapKeys().applyKey(n, fd.MapKey(), b.mode); err != nil {
		return nil, err
	}
	return n, rules.applyMap(n, b.mode)
}

// oneofs adds "at most one of" for md's oneofs and its message-level
// oneof rules ("exactly one" when required), in an input only, and says it
// in the description. Everything goes in one not over an anyOf: the pairs
// of members that may not be set together, and for a required group the
// schema of "none set". Some clients refuse anyOf, allOf and oneOf at the
// top of a tool's input schema; none refuses not.
func (b *builder) oneofs(n *node, md protoreflect.MessageDescriptor, mr *messageRules, present map[protoreflect.Name]bool) {
	var groups []oneofGroup
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		g := oneofGroup{required: mr.oneofRequired(od)}
		fields := od.Fields()
		for j := range fields.Len() {
			g.fields = append(g.fields, fields.Get(j))
		}
		groups = append(groups, g)
	}
	groups = append(groups, mr.oneofGroups(md)...)
	var banned []*node
	for _, g := range groups {
		var names []string
		for _, fd := range g.fields {
			if present[fd.Name()] {
				names = append(names, fd.JSONName())
			}
		}
		if len(names) == 0 {
			continue
		}
		required := g.required && b.mode == input
		switch {
		case required && len(names) == 1:
			n.note(fmt.Sprintf("Set %s.", listNames(names)))
		case required:
			n.note(fmt.Sprintf("Set exactly one of %s.", listNames(names)))
		case len(names) > 1:
			n.note(fmt.Sprintf("Set at most one of %s.", listNames(names)))
		}
		if b.mode == output {
			continue // the encoder writes one member at most: nothing to check
		}
		banned = append(banned, excluded(names, required)...)
	}
	if len(banned) > 0 {
		n.Not = &node{AnyOf: banned}
	}
}

// maxPairs is the size of the largest group whose members are banned in
// pairs; a larger one gets the linear form, since pairs grow as the square.
const maxPairs = 8

// excluded returns the schemas of what a group of members may not be:
// two members set, and when required, none. Up to [maxPairs] members it
// lists each pair; beyond, one oneOf over "only this member" for each and
// "none" (dropped when required), which matches exactly when at most one
// (or exactly one) is set, is banned when it does not match.
func excluded(names []string, required bool) []*node {
	var banned []*node
	any := make([]*node, len(names))
	for i, name := range names {
		any[i] = &node{Required: []string{name}}
	}
	if len(names) > maxPairs {
		alts := any
		if !required {
			alts = append(alts[:len(alts):len(alts)], &node{Not: &node{AnyOf: any}})
		}
		return []*node{{Not: &node{OneOf: alts}}}
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			banned = append(banned, &node{Required: []string{names[i], names[j]}})
		}
	}
	if required {
		banned = append(banned, &node{Not: &node{AnyOf: any}})
	}
	return banned
}

// oneofGroup is a set of fields of which at most one may be set.
type oneofGroup struct {
	fields   []protoreflect.FieldDescriptor
	required bool
}

// listNames writes names as "`a`, `b` or `c`".
func listNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// fileExtensions resolves the extensions declared in a file and the files
// it imports, transitively: those its options can use, such as predefined
// buf.validate rules. The registry is built on the first look-up, since
// most messages need none. It is not safe for concurrent use.
type fileExtensions struct {
	file  protoreflect.FileDescriptor
	types *dynamicpb.Types // nil until the first look-up
}

// FindExtensionByName implements [protoregistry.ExtensionTypeResolver].
func (x *fileExtensions) FindExtensionByName(name protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return x.resolver().FindExtensionByName(name)
}

// FindExtensionByNumber implements [protoregistry.ExtensionTypeResolver].
func (x *fileExtensions) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return x.resolver().FindExtensionByNumber(message, field)
}

func (x *fileExtensions) resolver() *dynamicpb.Types {
	if x.types != nil {
		return x.types
	}
	files := &protoregistry.Files{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if _, err := files.FindFileByPath(f.Path()); err == nil {
			return
		}
		if files.RegisterFile(f) != nil {
			return // a name clash: leave the file's extensions out
		}
		imports := f.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
	}
	add(x.file)
	x.types = dynamicpb.NewTypes(files)
	return x.types
}
