package protoschema

import (
	"encoding/json"
	"fmt"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// fieldRules are the buf.validate rules of one field; a nil *fieldRules or
// a nil r has none.
type fieldRules struct {
	fd    protoreflect.FieldDescriptor
	r     *validate.FieldRules
	types protoregistry.ExtensionTypeResolver // names predefined rules; may be nil
}

func readFieldRules(fd protoreflect.FieldDescriptor, types protoregistry.ExtensionTypeResolver) (*fieldRules, error) {
	r, err := protovalidate.ResolveFieldRules(fd)
	if err != nil {
		return nil, fmt.Errorf("reading its buf.validate rules: %w", err)
	}
	return &fieldRules{fd: fd, r: r, types: types}, nil
}

// active reports whether the rules apply at all.
func (f *fieldRules) active() bool {
	return f != nil && f.r != nil && f.r.GetIgnore() != validate.Ignore_IGNORE_ALWAYS
}

// required reports whether the rules require the field.
func (f *fieldRules) required() bool { return f.active() && f.r.GetRequired() }

// notes returns the sentences for the field's CEL rules.
func (f *fieldRules) notes() []string {
	if !f.active() {
		return nil
	}
	return celNotes(f.r.GetCel(), f.r.GetCelExpression())
}

// elem returns the rules of a singular field's value.
func (f *fieldRules) elem() *elemRules {
	if !f.active() {
		return nil
	}
	return &elemRules{r: f.r, types: f.types, ignoreZero: f.r.GetIgnore() == validate.Ignore_IGNORE_IF_ZERO_VALUE}
}

// nested returns the rules of an element, key or value.
func (f *fieldRules) nested(r *validate.FieldRules) *elemRules {
	if r == nil || r.GetIgnore() == validate.Ignore_IGNORE_ALWAYS {
		return nil
	}
	return &elemRules{r: r, types: f.types, nested: true, ignoreZero: r.GetIgnore() == validate.Ignore_IGNORE_IF_ZERO_VALUE}
}

func (f *fieldRules) items() *elemRules {
	if !f.active() {
		return nil
	}
	return f.nested(f.r.GetRepeated().GetItems())
}

func (f *fieldRules) mapKeys() *elemRules {
	if !f.active() {
		return nil
	}
	return f.nested(f.r.GetMap().GetKeys())
}

func (f *fieldRules) mapValues() *elemRules {
	if !f.active() {
		return nil
	}
	return f.nested(f.r.GetMap().GetValues())
}

// excludeZero makes an input refuse the zero value of a field without
// presence that the rules require: protojson reads "" or 0 as unset, which
// protovalidate's required refuses, while the required keyword only asks
// for the property.
func (f *fieldRules) excludeZero(n *node, m mode) {
	fd := f.fd
	if m == output || !f.required() || fd.HasPresence() && !fd.IsList() && !fd.IsMap() {
		return
	}
	switch {
	case fd.IsList():
		if n.MinItems == nil || *n.MinItems == 0 {
			n.MinItems = uptr(1)
		}
	case fd.IsMap():
		if n.MinProperties == nil || *n.MinProperties == 0 {
			n.MinProperties = uptr(1)
		}
	case fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind:
		if n.MinLength == nil || *n.MinLength == 0 {
			n.MinLength = uptr(1)
		}
	case fd.Kind() == protoreflect.BoolKind:
		n.Const = json.RawMessage(`true`)
	case fd.Kind() == protoreflect.EnumKind:
		zero := string(zeroJSON(fd))
		n.addNot(&node{Const: json.RawMessage(zero)})
	case is64(fd):
		n.addNot(&node{Enum: []any{0, "0"}})
	default:
		n.addNot(&node{Const: json.RawMessage(`0`)})
	}
}

// applyRepeated applies min_items, max_items and unique to the array n.
func (f *fieldRules) applyRepeated(n *node, m mode) error {
	if !f.active() || f.r.GetType() == nil {
		return nil
	}
	rr := f.r.GetRepeated()
	if rr == nil {
		return fmt.Errorf("%s rules on a repeated field", ruleKind(f.r))
	}
	t := target(n, m)
	if rr.HasMinItems() {
		t.MinItems = uptr(rr.GetMinItems())
	}
	if rr.HasMaxItems() {
		t.MaxItems = uptr(rr.GetMaxItems())
	}
	t.UniqueItems = rr.GetUnique()
	if f.r.GetIgnore() == validate.Ignore_IGNORE_IF_ZERO_VALUE && t.MinItems != nil {
		t.AnyOf = []*node{{MaxItems: uptr(0)}, {MinItems: t.MinItems}}
		t.MinItems = nil
	}
	return nil
}

// applyMap applies min_pairs and max_pairs to the object n.
func (f *fieldRules) applyMap(n *node, m mode) error {
	if !f.active() || f.r.GetType() == nil {
		return nil
	}
	mr := f.r.GetMap()
	if mr == nil {
		return fmt.Errorf("%s rules on a map field", ruleKind(f.r))
	}
	t := target(n, m)
	if mr.HasMinPairs() {
		t.MinProperties = uptr(mr.GetMinPairs())
	}
	if mr.HasMaxPairs() {
		t.MaxProperties = uptr(mr.GetMaxPairs())
	}
	if f.r.GetIgnore() == validate.Ignore_IGNORE_IF_ZERO_VALUE && t.MinProperties != nil {
		t.AnyOf = []*node{{MaxProperties: uptr(0)}, {MinProperties: t.MinProperties}}
		t.MinProperties = nil
	}
	return nil
}

// target returns the node rule keywords go in: n for an input, and for an
// output a scratch node whose notes alone are kept (see [Output]).
func target(n *node, m mode) *node {
	if m == output {
		return &node{}
	}
	return n
}

// predefinedNotes returns a sentence for each predefined rule set in r's
// typed rules: an extension of the rules message, whose CEL protovalidate
// runs, with no keyword. protovalidate's resolver leaves such extensions
// as unknown fields; types names them.
func predefinedNotes(r *validate.FieldRules, types protoregistry.ExtensionTypeResolver) []string {
	rm := r.ProtoReflect()
	which := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type"))
	if which == nil {
		return nil
	}
	typed := rm.Get(which).Message()
	var notes []string
	typed.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.IsExtension() {
			notes = append(notes, fmt.Sprintf("Checked when called: the rule %s.", fd.FullName()))
		}
		return true
	})
	for b := typed.GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			break
		}
		b = b[n+m:]
		name := fmt.Sprintf("number %d of %s", num, typed.Descriptor().FullName())
		if types != nil {
			if xt, err := types.FindExtensionByNumber(typed.Descriptor().FullName(), num); err == nil {
				name = string(xt.TypeDescriptor().FullName())
			}
		}
		notes = append(notes, fmt.Sprintf("Checked when called: the rule %s.", name))
	}
	return notes
}

// ruleKind names the type of rules r holds, for errors.
func ruleKind(r *validate.FieldRules) string {
	if t := r.ProtoReflect().WhichOneof(r.ProtoReflect().Descriptor().Oneofs().ByName("type")); t != nil {
		return string(t.Name())
	}
	return "no"
}

// elemRules are the rules of one value: a singular field's, or a repeated
// field's element, a map's key or value (nested, whose CEL rules are said
// on the value itself). A nil *elemRules has none.
type elemRules struct {
	r          *validate.FieldRules
	types      protoregistry.ExtensionTypeResolver
	nested     bool
	ignoreZero bool // IGNORE_IF_ZERO_VALUE: the zero value passes
}

// applyMessage applies the rules of a message-typed value.
func (e *elemRules) applyMessage(n *node, md protoreflect.MessageDescriptor, m mode) error {
	if e == nil {
		return nil
	}
	if e.nested {
		n.notes = append(n.notes, celNotes(e.r.GetCel(), e.r.GetCelExpression())...)
	}
	if e.r.GetType() == nil {
		return nil
	}
	if w := wrapped(md); w != nil {
		n.Examples = examples(e.r, w)
		// IGNORE_IF_ZERO_VALUE skips an unset wrapper (null), not a zero
		// in it: the keywords apply to the value as they are.
		inner := *e
		inner.ignoreZero = false
		return inner.applyValue(n, w, m)
	}
	n.Examples = examples(e.r, nil)
	n.notes = append(n.notes, predefinedNotes(e.r, e.types)...)
	t := target(n, m)
	switch md.FullName() {
	case "google.protobuf.Any":
		if ar := e.r.GetAny(); ar != nil {
			anyRules(n, t, ar)
			return nil
		}
	case "google.protobuf.Duration":
		if dr := e.r.GetDuration(); dr != nil {
			n.notes = append(n.notes, durationNotes(dr)...)
			return nil
		}
	case "google.protobuf.Timestamp":
		if tr := e.r.GetTimestamp(); tr != nil {
			n.notes = append(n.notes, timestampNotes(tr)...)
			return nil
		}
	case "google.protobuf.FieldMask":
		if fr := e.r.GetFieldMask(); fr != nil {
			n.notes = append(n.notes, fieldMaskNotes(fr)...)
			return nil
		}
	}
	return fmt.Errorf("%s rules on a field of type %s", ruleKind(e.r), md.FullName())
}

// applyScalar applies the rules of a scalar or enum value.
func (e *elemRules) applyScalar(n *node, fd protoreflect.FieldDescriptor, m mode) error {
	if e == nil {
		return nil
	}
	n.Examples = examples(e.r, fd)
	if e.nested {
		n.notes = append(n.notes, celNotes(e.r.GetCel(), e.r.GetCelExpression())...)
	}
	if e.r.GetType() == nil {
		return nil
	}
	return e.applyValue(n, fd, m)
}

// applyValue applies the typed rules of a scalar (or a wrapper's value fd)
// to n. With IGNORE_IF_ZERO_VALUE, the keywords go in an anyOf beside the
// zero value.
func (e *elemRules) applyValue(n *node, fd protoreflect.FieldDescriptor, m mode) error {
	n.notes = append(n.notes, predefinedNotes(e.r, e.types)...)
	c := &node{}
	if err := typedRules(c, e.r, fd, m); err != nil {
		return err
	}
	n.notes = append(n.notes, c.notes...)
	c.notes = nil
	if m == output {
		return nil
	}
	if e.ignoreZero {
		zero := &node{Const: zeroJSON(fd)}
		if is64(fd) {
			zero = &node{Enum: []any{0, "0"}}
		}
		n.AnyOf = []*node{zero, c}
		return nil
	}
	merge(n, c)
	return nil
}

// applyKey applies a map's key rules to its propertyNames.
func (e *elemRules) applyKey(n *node, kd protoreflect.FieldDescriptor, m mode) error {
	if e == nil || e.r.GetType() == nil {
		return nil
	}
	if n.PropertyNames == nil {
		n.PropertyNames = &node{}
	}
	c := &node{}
	// Keys are strings in JSON, so only string rules become keywords;
	// numeric key bounds are said in the description.
	if sr := e.r.GetString(); sr != nil {
		if err := stringRules(c, sr); err != nil {
			return err
		}
	} else if err := typedRules(&node{}, e.r, kd, m); err != nil {
		return err
	} else {
		n.note("Its keys are also checked against numeric bounds when the tool is called.")
	}
	n.notes = append(n.notes, c.notes...)
	c.notes = nil
	if m == input {
		merge(n.PropertyNames, c)
	}
	return nil
}

// merge copies the keywords set in c into n.
func merge(n, c *node) {
	if c.Pattern != "" {
		n.addPattern(c.Pattern)
	}
	if c.Not != nil {
		n.addNot(c.Not)
	}
	n.AllOf = append(n.AllOf, c.AllOf...)
	if c.AnyOf != nil {
		if n.AnyOf == nil {
			n.AnyOf = c.AnyOf
		} else {
			n.AllOf = append(n.AllOf, &node{AnyOf: c.AnyOf})
		}
	}
	setIf(&n.MinLength, c.MinLength)
	setIf(&n.MaxLength, c.MaxLength)
	if c.Minimum != "" || c.ExclusiveMinimum != "" {
		n.Minimum, n.ExclusiveMinimum = c.Minimum, c.ExclusiveMinimum
	}
	if c.Maximum != "" || c.ExclusiveMaximum != "" {
		n.Maximum, n.ExclusiveMaximum = c.Maximum, c.ExclusiveMaximum
	}
	if c.Format != "" {
		n.Format = c.Format
	}
	if c.Const != nil {
		n.Const = c.Const
	}
	if c.Enum != nil {
		n.Enum = c.Enum
	}
	if c.Type != nil {
		nullable := contains(n.Type, "null")
		n.Type = c.Type
		if nullable {
			n.nullable()
		}
		if !contains(n.Type, "string") {
			n.Pattern = "" // the pattern only ever checked a string form
		}
	}
}

func setIf(dst **uint64, v *uint64) {
	if v != nil {
		*dst = v
	}
}

// typedRules applies the rules of r's type to c, for a value of fd's type.
func typedRules(c *node, r *validate.FieldRules, fd protoreflect.FieldDescriptor, m mode) error {
	mismatch := fmt.Errorf("%s rules on a field of type %s", ruleKind(r), fd.Kind())
	switch fd.Kind() {
	case protoreflect.StringKind:
		if sr := r.GetString(); sr != nil {
			return stringRules(c, sr)
		}
	case protoreflect.BytesKind:
		if br := r.GetBytes(); br != nil {
			bytesRules(c, br)
			return nil
		}
	case protoreflect.BoolKind:
		if br := r.GetBool(); br != nil {
			if br.HasConst() {
				c.Const = jsonValue(br.GetConst())
			}
			return nil
		}
	case protoreflect.EnumKind:
		if er := r.GetEnum(); er != nil {
			enumRules(c, er, fd.Enum())
			return nil
		}
	default:
		if nr := numericRulesOf(r, fd.Kind()); nr != nil {
			return numericRules(c, nr, fd, m)
		}
	}
	return mismatch
}

// celNotes returns one sentence per CEL rule: its message, or else its
// expression. protovalidate checks them when the tool is called.
func celNotes(rules []*validate.Rule, exprs []string) []string {
	var notes []string
	for _, r := range rules {
		text := r.GetMessage()
		if text == "" {
			text = r.GetExpression()
		}
		notes = append(notes, "Checked when called: "+text)
	}
	for _, e := range exprs {
		notes = append(notes, "Checked when called: "+e)
	}
	return notes
}
