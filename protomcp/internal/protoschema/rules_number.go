package protoschema

import (
	"encoding/json"
	"strconv"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// enumRules applies buf.validate enum rules to the list of names.
// defined_only needs nothing: an input lists the defined names only.
func enumRules(c *node, er *validate.EnumRules, ed protoreflect.EnumDescriptor) {
	if er.HasConst() {
		if v := ed.Values().ByNumber(protoreflect.EnumNumber(er.GetConst())); v != nil {
			c.Const = jsonValue(string(v.Name()))
		}
	}
	keep := func(protoreflect.EnumNumber) bool { return true }
	if in := er.GetIn(); len(in) > 0 {
		keep = func(n protoreflect.EnumNumber) bool { return contains(in, int32(n)) }
	}
	notIn := er.GetNotIn()
	if len(er.GetIn()) > 0 || len(notIn) > 0 {
		c.Enum = enumNames(ed, func(n protoreflect.EnumNumber) bool { return keep(n) && !contains(notIn, int32(n)) })
		if len(c.Enum) == 0 {
			c.Enum = nil
			c.Not = &node{} // nothing passes
		}
	}
}

func contains[T comparable](s []T, v T) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// numericRulesOf returns the numeric rules in r for kind k, or nil.
func numericRulesOf(r *validate.FieldRules, k protoreflect.Kind) protoreflect.Message {
	var m interface{ ProtoReflect() protoreflect.Message }
	switch k {
	case protoreflect.Int32Kind:
		m = r.GetInt32()
	case protoreflect.Sint32Kind:
		m = r.GetSint32()
	case protoreflect.Sfixed32Kind:
		m = r.GetSfixed32()
	case protoreflect.Uint32Kind:
		m = r.GetUint32()
	case protoreflect.Fixed32Kind:
		m = r.GetFixed32()
	case protoreflect.Int64Kind:
		m = r.GetInt64()
	case protoreflect.Sint64Kind:
		m = r.GetSint64()
	case protoreflect.Sfixed64Kind:
		m = r.GetSfixed64()
	case protoreflect.Uint64Kind:
		m = r.GetUint64()
	case protoreflect.Fixed64Kind:
		m = r.GetFixed64()
	case protoreflect.FloatKind:
		m = r.GetFloat()
	case protoreflect.DoubleKind:
		m = r.GetDouble()
	}
	if m == nil || !m.ProtoReflect().IsValid() {
		return nil
	}
	return m.ProtoReflect()
}

// numericRules applies the numeric rules m (all numeric rule messages have
// the same fields: const, lt, lte, gt, gte, in, not_in, and finite for
// floating types) to a value of fd's type. A lower bound above the upper
// one means "outside the range", as in protovalidate.
func numericRules(c *node, m protoreflect.Message, fd protoreflect.FieldDescriptor, md mode) error {
	fields := m.Descriptor().Fields()
	get := func(name protoreflect.Name) (protoreflect.Value, bool) {
		f := fields.ByName(name)
		if f == nil || !m.Has(f) {
			return protoreflect.Value{}, false
		}
		return m.Get(f), true
	}
	wide := is64(fd) && md == input
	floating := fd.Kind() == protoreflect.FloatKind || fd.Kind() == protoreflect.DoubleKind
	if v, ok := get("const"); ok {
		if wide {
			c.Enum = []any{number(v), string(number(v))}
		} else {
			c.Const = json.RawMessage(number(v))
		}
	}
	lower, upper := &node{}, &node{}
	gt, hasGt := get("gt")
	gte, hasGte := get("gte")
	lt, hasLt := get("lt")
	lte, hasLte := get("lte")
	switch {
	case hasGt:
		lower.ExclusiveMinimum = number(gt)
	case hasGte:
		lower.Minimum = number(gte)
	}
	switch {
	case hasLt:
		upper.ExclusiveMaximum = number(lt)
	case hasLte:
		upper.Maximum = number(lte)
	}
	lo, hasLo := bound(lower)
	hi, hasHi := bound(upper)
	if hasLo && hasHi && lo >= hi {
		c.AnyOf = []*node{lower, upper} // outside the range
	} else {
		c.Minimum, c.ExclusiveMinimum = lower.Minimum, lower.ExclusiveMinimum
		c.Maximum, c.ExclusiveMaximum = upper.Maximum, upper.ExclusiveMaximum
	}
	if v, ok := get("in"); ok && v.List().Len() > 0 {
		c.Enum = numbers(v.List(), wide)
	}
	if v, ok := get("not_in"); ok && v.List().Len() > 0 {
		c.addNot(&node{Enum: numbers(v.List(), wide)})
	}
	if floating {
		finite, _ := get("finite")
		floatStrings(c, finite.IsValid() && finite.Bool(), hasLo, hasHi, c.Const != nil || c.Enum != nil)
	}
	if wide && (hasLo || hasHi) {
		c.note("Bounds apply to its value whether it is written as a number or a string.")
	}
	return nil
}

// floatStrings narrows the strings a floating value may be once rules
// bound it: NaN passes no bound, and an infinity passes only the bound on
// its other side.
func floatStrings(c *node, finite, hasLo, hasHi, listed bool) {
	switch {
	case finite || listed || hasLo && hasHi:
		c.Type = types{"number"}
	case hasLo:
		c.addPattern(`^Infinity$`)
	case hasHi:
		c.addPattern(`^-Infinity$`)
	}
}

// bound returns a node's one bound as a float, to compare bounds.
func bound(n *node) (float64, bool) {
	for _, s := range []json.Number{n.Minimum, n.ExclusiveMinimum, n.Maximum, n.ExclusiveMaximum} {
		if s != "" {
			f, err := s.Float64()
			return f, err == nil
		}
	}
	return 0, false
}

// number writes a numeric rule value as JSON.
func number(v protoreflect.Value) json.Number {
	switch x := v.Interface().(type) {
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10))
	case uint64:
		return json.Number(strconv.FormatUint(x, 10))
	case float32:
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return "0"
}

// numbers lists numeric rule values as enum members; a 64-bit input lists
// each as a number and as a string, the two forms protojson reads.
func numbers(l protoreflect.List, wide bool) []any {
	var out []any
	for i := range l.Len() {
		n := number(l.Get(i))
		out = append(out, n)
		if wide {
			out = append(out, string(n))
		}
	}
	return out
}

// is64 reports whether fd is a 64-bit integer, which protojson writes as a
// string.
func is64(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

// zeroJSON is the JSON of fd's zero value, which protojson reads as unset.
func zeroJSON(fd protoreflect.FieldDescriptor) json.RawMessage {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind:
		return json.RawMessage(`""`)
	case protoreflect.BoolKind:
		return json.RawMessage(`false`)
	case protoreflect.EnumKind:
		// The value of an unset field: the first one for a closed enum
		// without a zero.
		v := fd.DefaultEnumValue()
		if v == nil {
			v = fd.Enum().Values().ByNumber(0)
		}
		if v == nil && fd.Enum().Values().Len() > 0 {
			v = fd.Enum().Values().Get(0)
		}
		if v != nil {
			return jsonValue(string(v.Name()))
		}
	}
	return json.RawMessage(`0`)
}
