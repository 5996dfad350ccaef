package protoschema

import (
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// gen makes random messages that aim to satisfy their buf.validate rules:
// it reads the rules (bounds, lengths, counts, in, const, examples) and
// draws values inside them; protovalidate has the last word, and the
// property test counts how many pass. Values a rule makes hard to draw
// (patterns, formats) come from the rule's examples.
type gen struct {
	r    *rand.Rand
	mode mode
	item protoreflect.MessageDescriptor // packed into Any fields
}

func newGen(seed uint64, m mode, item protoreflect.MessageDescriptor) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), mode: m, item: item}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// message returns a random md.
func (g *gen) message(md protoreflect.MessageDescriptor, depth int) *dynamicpb.Message {
	m := dynamicpb.NewMessage(md)
	if wk := g.wellKnown(md, nil); wk != nil {
		return wk
	}
	skip := g.exclusive(md)
	// Message-level CEL rules usually read several fields: set them all.
	mr, _ := protovalidate.ResolveMessageRules(md)
	all := len(mr.GetCel()) > 0
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		fb := readFieldBehavior(fd)
		if g.mode == input && fb.outputOnly || skip[fd.Name()] {
			continue
		}
		rules, _ := protovalidate.ResolveFieldRules(fd)
		must := fb.required && g.mode == input || rules.GetRequired() || fd.Cardinality() == protoreflect.Required ||
			rules != nil && !fd.HasPresence() && rules.GetIgnore() == validate.Ignore_IGNORE_UNSPECIFIED
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			must = true // exclusive picked this member
		}
		if (fd.Message() != nil || fd.IsMap() && fd.MapValue().Message() != nil) && depth > 3 && !must {
			continue
		}
		if !must && !all && !g.chance(0.8) {
			continue
		}
		g.set(m, fd, rules, depth)
		// A required field must not be its zero value, which is unset.
		for try := 0; must && !m.Has(fd) && try < 20; try++ {
			g.set(m, fd, rules, depth)
		}
	}
	return m
}

// exclusive picks at most one member of each oneof and message-level oneof
// rule (exactly one when required) and returns the members to leave unset.
func (g *gen) exclusive(md protoreflect.MessageDescriptor) map[protoreflect.Name]bool {
	skip := map[protoreflect.Name]bool{}
	pick := func(names []protoreflect.Name, required bool) {
		keep := -1
		if required || g.chance(0.7) {
			keep = g.r.IntN(len(names))
		}
		for i, n := range names {
			if i != keep {
				skip[n] = true
			}
		}
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		var names []protoreflect.Name
		for j := range od.Fields().Len() {
			names = append(names, od.Fields().Get(j).Name())
		}
		r, _ := protovalidate.ResolveOneofRules(od)
		pick(names, r.GetRequired())
	}
	mr, _ := protovalidate.ResolveMessageRules(md)
	for _, o := range mr.GetOneof() {
		var names []protoreflect.Name
		for _, f := range o.GetFields() {
			names = append(names, protoreflect.Name(f))
		}
		pick(names, o.GetRequired())
	}
	return skip
}

func (g *gen) set(m *dynamicpb.Message, fd protoreflect.FieldDescriptor, rules *validate.FieldRules, depth int) {
	switch {
	case fd.IsList():
		rr := rules.GetRepeated()
		n := g.count(rr.HasMinItems(), rr.GetMinItems(), rr.HasMaxItems(), rr.GetMaxItems())
		l := m.Mutable(fd).List()
		for range n {
			l.Append(g.value(fd, rr.GetItems(), depth))
		}
	case fd.IsMap():
		mr := rules.GetMap()
		n := g.count(mr.HasMinPairs(), mr.GetMinPairs(), mr.HasMaxPairs(), mr.GetMaxPairs())
		mp := m.Mutable(fd).Map()
		for range n {
			k := g.value(fd.MapKey(), mr.GetKeys(), depth)
			mp.Set(k.MapKey(), g.value(fd.MapValue(), mr.GetValues(), depth))
		}
	default:
		m.Set(fd, g.value(fd, rules, depth))
	}
}

// count draws a number of items within the bounds (0 to 3 when unbounded).
func (g *gen) count(hasMin bool, lo uint64, hasMax bool, hi uint64) int {
	if !hasMin {
		lo = 0
	}
	if !hasMax {
		hi = lo + 3
	}
	return int(lo) + g.r.IntN(int(hi-lo)+1)
}

// value draws one value of fd's type under the rules r (which may be nil).
func (g *gen) value(fd protoreflect.FieldDescriptor, r *validate.FieldRules, depth int) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if wk := g.wellKnown(fd.Message(), r); wk != nil {
			return protoreflect.ValueOfMessage(wk)
		}
		return protoreflect.ValueOfMessage(g.message(fd.Message(), depth+1))
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(g.str(r.GetString()))
	case protoreflect.BytesKind:
		br := r.GetBytes()
		if len(br.GetIn()) > 0 {
			return protoreflect.ValueOfBytes(br.GetIn()[g.r.IntN(len(br.GetIn()))])
		}
		lo, hi := g.lengths(br.HasLen(), br.GetLen(), br.HasMinLen(), br.GetMinLen(), br.HasMaxLen(), br.GetMaxLen())
		b := make([]byte, lo+g.r.IntN(hi-lo+1))
		for i := range b {
			b[i] = byte(g.r.IntN(256))
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.BoolKind:
		if br := r.GetBool(); br.HasConst() {
			return protoreflect.ValueOfBool(br.GetConst())
		}
		return protoreflect.ValueOfBool(g.chance(0.5))
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(g.enum(fd.Enum(), r.GetEnum()))
	}
	return g.number(fd, r)
}

// lengths returns the bounds of a length rule (0 to 8 when unbounded).
func (g *gen) lengths(hasLen bool, n uint64, hasMin bool, lo uint64, hasMax bool, hi uint64) (int, int) {
	if hasLen {
		return int(n), int(n)
	}
	if !hasMin {
		lo = 0
	}
	if !hasMax {
		hi = lo + 8
	}
	return int(lo), int(hi)
}

// alphabet mixes one- to four-byte characters, so that lengths in
// characters and in bytes differ.
var alphabet = []rune("abcxyzABCXYZ019 -_.éü日本😀")

func (g *gen) str(sr *validate.StringRules) string {
	switch {
	case len(sr.GetExample()) > 0:
		return sr.GetExample()[g.r.IntN(len(sr.GetExample()))]
	case sr.HasConst():
		return sr.GetConst()
	case len(sr.GetIn()) > 0:
		return sr.GetIn()[g.r.IntN(len(sr.GetIn()))]
	}
	lo, hi := g.lengths(sr.HasLen(), sr.GetLen(), sr.HasMinLen(), sr.GetMinLen(), sr.HasMaxLen(), sr.GetMaxLen())
	if sr.HasMaxBytes() && hi > int(sr.GetMaxBytes()) {
		hi = int(sr.GetMaxBytes())
	}
	var b strings.Builder
	for range lo + g.r.IntN(hi-lo+1) {
		b.WriteRune(alphabet[g.r.IntN(len(alphabet))])
	}
	return b.String()
}

func (g *gen) enum(ed protoreflect.EnumDescriptor, er *validate.EnumRules) protoreflect.EnumNumber {
	switch {
	case er.HasConst():
		return protoreflect.EnumNumber(er.GetConst())
	case len(er.GetIn()) > 0:
		return protoreflect.EnumNumber(er.GetIn()[g.r.IntN(len(er.GetIn()))])
	case er == nil && g.mode == output && !ed.IsClosed() && g.chance(0.1):
		return 99 // a number the descriptor does not name: protojson writes it as a number
	}
	return ed.Values().Get(g.r.IntN(ed.Values().Len())).Number()
}

// number draws a numeric value inside the rule's bounds, or from a spread
// that reaches the type's extremes (and NaN and infinities for floating
// types) when it has none.
func (g *gen) number(fd protoreflect.FieldDescriptor, r *validate.FieldRules) protoreflect.Value {
	var lo, hi float64
	var hasLo, hasHi bool
	var listed []protoreflect.Value
	if nr := numericRulesOf(r, fd.Kind()); nr != nil {
		f := nr.Descriptor().Fields()
		for _, name := range []protoreflect.Name{"gt", "gte"} {
			if nr.Has(f.ByName(name)) {
				lo, hasLo = toFloat(nr.Get(f.ByName(name))), true
			}
		}
		for _, name := range []protoreflect.Name{"lt", "lte"} {
			if nr.Has(f.ByName(name)) {
				hi, hasHi = toFloat(nr.Get(f.ByName(name))), true
			}
		}
		if c := f.ByName("const"); nr.Has(c) {
			return nr.Get(c)
		}
		if in := f.ByName("in"); nr.Has(in) {
			l := nr.Get(in).List()
			listed = append(listed, l.Get(g.r.IntN(l.Len())))
		}
	}
	if len(listed) > 0 {
		return listed[0]
	}
	var v float64
	switch {
	case hasLo && hasHi && lo < hi:
		v = lo + g.r.Float64()*(hi-lo)
	case hasLo && hasHi: // outside the range
		if g.chance(0.5) {
			v = lo + 1 + g.r.Float64()*1000
		} else {
			v = hi - 1 - g.r.Float64()*1000
		}
	case hasLo:
		v = lo + g.r.Float64()*1000
	case hasHi:
		v = hi - g.r.Float64()*1000
	default:
		return g.spread(fd.Kind())
	}
	return fromFloat(fd.Kind(), v)
}

// spread draws an unconstrained value of kind k.
func (g *gen) spread(k protoreflect.Kind) protoreflect.Value {
	small := g.r.NormFloat64() * 1000
	switch k {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), math.MaxFloat32, -math.SmallestNonzeroFloat32}
		if g.chance(0.2) {
			return fromFloat(k, specials[g.r.IntN(len(specials))])
		}
		return fromFloat(k, small)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		extremes := []int64{math.MinInt64, math.MaxInt64, 1 << 53, -(1 << 53) - 1}
		if g.chance(0.2) {
			return protoreflect.ValueOfInt64(extremes[g.r.IntN(len(extremes))])
		}
		return protoreflect.ValueOfInt64(g.r.Int64() >> g.r.IntN(64))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if g.chance(0.2) {
			return protoreflect.ValueOfUint64(math.MaxUint64)
		}
		return protoreflect.ValueOfUint64(g.r.Uint64() >> g.r.IntN(64))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(g.r.Uint32() >> g.r.IntN(32))
	}
	return protoreflect.ValueOfInt32(int32(g.r.Uint32()) >> g.r.IntN(32))
}

func toFloat(v protoreflect.Value) float64 {
	switch x := v.Interface().(type) {
	case int32:
		return float64(x)
	case int64:
		return float64(x)
	case uint32:
		return float64(x)
	case uint64:
		return float64(x)
	case float32:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

func fromFloat(k protoreflect.Kind, v float64) protoreflect.Value {
	switch k {
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(v))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(v)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(math.Round(v)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(math.Max(0, math.Round(v))))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(math.Max(0, math.Round(v))))
	}
	return protoreflect.ValueOfInt32(int32(math.Round(v)))
}

// wellKnown draws a well-known type's value, or returns nil for another
// message. r holds the field's rules (timestamps, durations, wrappers).
func (g *gen) wellKnown(md protoreflect.MessageDescriptor, r *validate.FieldRules) *dynamicpb.Message {
	var typed proto.Message
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		typed = g.timestamp(r.GetTimestamp())
	case "google.protobuf.Duration":
		typed = g.duration(r.GetDuration())
	case "google.protobuf.Struct":
		typed = g.structValue(2)
	case "google.protobuf.Value":
		typed = g.jsonValue(2)
	case "google.protobuf.ListValue":
		typed = g.listValue(2)
	case "google.protobuf.FieldMask":
		fm := &fieldmaskpb.FieldMask{}
		for range g.r.IntN(3) {
			fm.Paths = append(fm.Paths, []string{"a", "b_c", "display_name", "address.city_name"}[g.r.IntN(4)])
		}
		typed = fm
	case "google.protobuf.Any":
		a, err := anypb.New(g.message(g.item, 3))
		if err != nil {
			panic(err)
		}
		typed = a
	case "google.protobuf.Empty":
		return dynamicpb.NewMessage(md)
	default:
		if w := wrapped(md); w != nil {
			m := dynamicpb.NewMessage(md)
			m.Set(w, g.value(w, r, 0))
			return m
		}
		return nil
	}
	// Copied through the wire form: md may be another copy of the type.
	data, err := proto.Marshal(typed)
	if err != nil {
		panic(err)
	}
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(data, m); err != nil {
		panic(err)
	}
	return m
}

func (g *gen) timestamp(tr *validate.TimestampRules) *timestamppb.Timestamp {
	lo, hi := int64(-62135596800), int64(253402300799) // years 1 to 9999
	const thirtyYears = 30 * 365 * 24 * 3600
	if tr.HasGt() || tr.HasGte() {
		lo = max(tr.GetGt().GetSeconds(), tr.GetGte().GetSeconds()) + 1
		hi = lo + thirtyYears
	}
	if tr.GetLtNow() {
		hi = time.Now().Unix() - 60
		lo = hi - thirtyYears
	}
	return &timestamppb.Timestamp{Seconds: lo + g.r.Int64N(hi-lo), Nanos: int32(g.r.IntN(1e9))}
}

func (g *gen) duration(dr *validate.DurationRules) *durationpb.Duration {
	if dr.HasGte() && dr.HasLte() {
		lo, hi := dr.GetGte().AsDuration(), dr.GetLte().AsDuration()
		return durationpb.New(lo + time.Duration(g.r.Int64N(int64(hi-lo))))
	}
	s := g.r.Int64N(2*315576000000) - 315576000000
	n := int32(g.r.IntN(1e9))
	if s < 0 {
		n = -n
	}
	return &durationpb.Duration{Seconds: s, Nanos: n}
}

func (g *gen) jsonValue(depth int) *structpb.Value {
	switch c := g.r.IntN(7); {
	case c == 0:
		return structpb.NewNullValue()
	case c == 1:
		return structpb.NewBoolValue(g.chance(0.5))
	case c == 2:
		return structpb.NewNumberValue(g.r.NormFloat64() * 1e6)
	case c == 3 && depth > 0:
		return structpb.NewStructValue(g.structValue(depth - 1))
	case c == 4 && depth > 0:
		return structpb.NewListValue(g.listValue(depth - 1))
	}
	return structpb.NewStringValue(g.str(nil))
}

func (g *gen) structValue(depth int) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	for range g.r.IntN(4) {
		s.Fields[g.str(nil)] = g.jsonValue(depth)
	}
	return s
}

func (g *gen) listValue(depth int) *structpb.ListValue {
	l := &structpb.ListValue{}
	for range g.r.IntN(4) {
		l.Values = append(l.Values, g.jsonValue(depth))
	}
	return l
}

func nanValue() float64 { return math.NaN() }
