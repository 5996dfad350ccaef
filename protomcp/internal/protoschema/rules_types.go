package protoschema

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Patterns of the string formats JSON Schema has no format name for, or
// whose format name clients ignore.
const (
	uuidPattern  = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	tuuidPattern = `^[0-9a-fA-F]{32}$`
	ulidPattern  = `^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`
)

// stringRules applies buf.validate string rules. Lengths count characters
// (code points), as JSON Schema does; byte lengths are bounded loosely and
// said in the description.
func stringRules(c *node, sr *validate.StringRules) error {
	if sr.HasConst() {
		c.Const = jsonValue(sr.GetConst())
	}
	if sr.HasLen() {
		c.MinLength, c.MaxLength = uptr(sr.GetLen()), uptr(sr.GetLen())
	}
	if sr.HasMinLen() {
		c.MinLength = uptr(sr.GetMinLen())
	}
	if sr.HasMaxLen() {
		c.MaxLength = uptr(sr.GetMaxLen())
	}
	// A character is one to four bytes of UTF-8.
	if sr.HasLenBytes() {
		c.note(fmt.Sprintf("Exactly %d bytes in UTF-8.", sr.GetLenBytes()))
		c.MinLength, c.MaxLength = uptr((sr.GetLenBytes()+3)/4), uptr(sr.GetLenBytes())
	}
	if sr.HasMinBytes() {
		c.note(fmt.Sprintf("At least %d bytes in UTF-8.", sr.GetMinBytes()))
		c.MinLength = uptr((sr.GetMinBytes() + 3) / 4)
	}
	if sr.HasMaxBytes() {
		c.note(fmt.Sprintf("At most %d bytes in UTF-8.", sr.GetMaxBytes()))
		c.MaxLength = uptr(sr.GetMaxBytes())
	}
	if sr.HasPattern() {
		if p := sr.GetPattern(); portablePattern(p) {
			c.addPattern(p)
		} else {
			c.note(fmt.Sprintf("Must match the RE2 pattern %s.", p))
		}
	}
	if sr.HasPrefix() {
		c.addPattern("^" + regexp.QuoteMeta(sr.GetPrefix()))
	}
	if sr.HasSuffix() {
		c.addPattern(regexp.QuoteMeta(sr.GetSuffix()) + "$")
	}
	if sr.HasContains() {
		c.addPattern(regexp.QuoteMeta(sr.GetContains()))
	}
	if sr.HasNotContains() {
		c.addNot(&node{Pattern: regexp.QuoteMeta(sr.GetNotContains())})
	}
	if in := sr.GetIn(); len(in) > 0 {
		c.Enum = anySlice(in)
	}
	if notIn := sr.GetNotIn(); len(notIn) > 0 {
		c.addNot(&node{Enum: anySlice(notIn)})
	}
	wellKnownString(c, sr)
	return nil
}

// wellKnownString applies the well-known string formats: a format name
// where JSON Schema has one, and a pattern where the form is simple
// enough to be exact (clients often ignore format).
func wellKnownString(c *node, sr *validate.StringRules) {
	switch {
	case sr.GetEmail():
		c.Format = "email"
	case sr.GetHostname():
		c.Format = "hostname"
	case sr.GetIp():
		c.AnyOf = []*node{{Format: "ipv4"}, {Format: "ipv6"}}
		c.note("An IPv4 or IPv6 address.")
	case sr.GetIpv4():
		c.Format = "ipv4"
	case sr.GetIpv6():
		c.Format = "ipv6"
	case sr.GetUri():
		c.Format = "uri"
	case sr.GetUriRef():
		c.Format = "uri-reference"
	case sr.GetAddress():
		c.AnyOf = []*node{{Format: "hostname"}, {Format: "ipv4"}, {Format: "ipv6"}}
		c.note("A hostname or an IP address.")
	case sr.GetUuid():
		c.Format = "uuid"
		c.addPattern(uuidPattern)
	case sr.GetTuuid():
		c.addPattern(tuuidPattern)
		c.note("A UUID as 32 hexadecimal digits without dashes.")
	case sr.GetUlid():
		c.addPattern(ulidPattern)
		c.note("A ULID.")
	case sr.GetIpWithPrefixlen():
		c.note("An IP address with a prefix length, such as 192.168.0.1/24.")
	case sr.GetIpv4WithPrefixlen():
		c.note("An IPv4 address with a prefix length, such as 192.168.0.1/24.")
	case sr.GetIpv6WithPrefixlen():
		c.note("An IPv6 address with a prefix length, such as 2001:db8::1/64.")
	case sr.GetIpPrefix():
		c.note("An IP prefix, such as 192.168.0.0/24.")
	case sr.GetIpv4Prefix():
		c.note("An IPv4 prefix, such as 192.168.0.0/24.")
	case sr.GetIpv6Prefix():
		c.note("An IPv6 prefix, such as 2001:db8::/64.")
	case sr.GetHostAndPort():
		c.note("A host and a port, such as example.com:8080 or [::1]:80.")
	case sr.GetProtobufFqn():
		c.note("A fully-qualified protobuf name, such as foo.v1.Bar.")
	case sr.GetProtobufDotFqn():
		c.note("A fully-qualified protobuf name with a leading dot, such as .foo.v1.Bar.")
	case sr.GetWellKnownRegex() == validate.KnownRegex_KNOWN_REGEX_HTTP_HEADER_NAME:
		c.note("An HTTP header name.")
	case sr.GetWellKnownRegex() == validate.KnownRegex_KNOWN_REGEX_HTTP_HEADER_VALUE:
		c.note("An HTTP header value.")
	}
}

// portablePattern reports whether an RE2 pattern means the same as an
// ECMA-262 one, as far as a cheap check can tell: it compiles, and it has
// none of the RE2 forms ECMA-262 lacks or reads differently.
func portablePattern(p string) bool {
	if _, err := regexp.Compile(p); err != nil {
		return false
	}
	for _, bad := range []string{`(?i`, `(?s`, `(?m`, `(?U`, `(?P<`, `\A`, `\z`, `\Q`, `[[:`, `\C`} {
		if strings.Contains(p, bad) {
			return false
		}
	}
	return true
}

// bytesRules applies buf.validate bytes rules to a base64 string: byte
// lengths become bounds on the base64 length (n bytes take 4n/3 characters
// unpadded, up to 4 per 3 padded) and are said in the description.
func bytesRules(c *node, br *validate.BytesRules) {
	minLen := func(n uint64) *uint64 { return uptr((4*n + 2) / 3) }
	maxLen := func(n uint64) *uint64 { return uptr(4 * ((n + 2) / 3)) }
	if br.HasConst() {
		c.Const = jsonValue(base64.StdEncoding.EncodeToString(br.GetConst()))
	}
	if br.HasLen() {
		c.MinLength, c.MaxLength = minLen(br.GetLen()), maxLen(br.GetLen())
		c.note(fmt.Sprintf("Exactly %s.", byteCount(br.GetLen())))
	}
	if br.HasMinLen() {
		c.MinLength = minLen(br.GetMinLen())
		c.note(fmt.Sprintf("At least %s.", byteCount(br.GetMinLen())))
	}
	if br.HasMaxLen() {
		c.MaxLength = maxLen(br.GetMaxLen())
		c.note(fmt.Sprintf("At most %s.", byteCount(br.GetMaxLen())))
	}
	if br.HasPattern() {
		c.note(fmt.Sprintf("Its bytes, read as UTF-8, must match the RE2 pattern %s.", br.GetPattern()))
	}
	if br.HasPrefix() {
		c.note(fmt.Sprintf("Starts with the bytes %s (base64).", base64.StdEncoding.EncodeToString(br.GetPrefix())))
	}
	if br.HasSuffix() {
		c.note(fmt.Sprintf("Ends with the bytes %s (base64).", base64.StdEncoding.EncodeToString(br.GetSuffix())))
	}
	if br.HasContains() {
		c.note(fmt.Sprintf("Contains the bytes %s (base64).", base64.StdEncoding.EncodeToString(br.GetContains())))
	}
	if in := br.GetIn(); len(in) > 0 {
		c.Enum = base64s(in)
	}
	if notIn := br.GetNotIn(); len(notIn) > 0 {
		c.addNot(&node{Enum: base64s(notIn)})
	}
	switch {
	case br.GetIp():
		c.note("An IP address: 4 or 16 bytes.")
		c.MinLength, c.MaxLength = minLen(4), maxLen(16)
	case br.GetIpv4():
		c.note("An IPv4 address: 4 bytes.")
		c.MinLength, c.MaxLength = minLen(4), maxLen(4)
	case br.GetIpv6(), br.GetUuid():
		c.note("16 bytes.")
		c.MinLength, c.MaxLength = minLen(16), maxLen(16)
	}
}

// byteCount writes n bytes in words.
func byteCount(n uint64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatUint(n, 10) + " bytes"
}

func base64s(in [][]byte) []any {
	out := make([]any, len(in))
	for i, b := range in {
		out[i] = base64.StdEncoding.EncodeToString(b)
	}
	return out
}

func anySlice[T any](in []T) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = v
	}
	return out
}

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

// zeroJSON is the JSON of fd's zero value.
func zeroJSON(fd protoreflect.FieldDescriptor) json.RawMessage {
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind:
		return json.RawMessage(`""`)
	case protoreflect.BoolKind:
		return json.RawMessage(`false`)
	case protoreflect.EnumKind:
		if v := fd.Enum().Values().ByNumber(0); v != nil {
			return jsonValue(string(v.Name()))
		}
	}
	return json.RawMessage(`0`)
}

// anyRules applies buf.validate Any rules to the "@type" property.
func anyRules(c *node, ar *validate.AnyRules) {
	if in := ar.GetIn(); len(in) > 0 {
		c.note("Its @type is one of " + strings.Join(in, ", ") + ".")
	}
	if notIn := ar.GetNotIn(); len(notIn) > 0 {
		c.note("Its @type is none of " + strings.Join(notIn, ", ") + ".")
	}
}

// durationNotes says buf.validate Duration rules in sentences: a duration
// string has no numeric keyword.
func durationNotes(dr *validate.DurationRules) []string {
	s := durationJSON
	var notes []string
	if dr.HasConst() {
		notes = append(notes, "Must be exactly "+s(dr.GetConst())+".")
	}
	if dr.HasGt() {
		notes = append(notes, "Must be longer than "+s(dr.GetGt())+".")
	}
	if dr.HasGte() {
		notes = append(notes, "Must be at least "+s(dr.GetGte())+".")
	}
	if dr.HasLt() {
		notes = append(notes, "Must be shorter than "+s(dr.GetLt())+".")
	}
	if dr.HasLte() {
		notes = append(notes, "Must be at most "+s(dr.GetLte())+".")
	}
	if in := dr.GetIn(); len(in) > 0 {
		notes = append(notes, "Must be one of "+joinMap(in, s)+".")
	}
	if notIn := dr.GetNotIn(); len(notIn) > 0 {
		notes = append(notes, "Must not be "+joinMap(notIn, s)+".")
	}
	return notes
}

// timestampNotes says buf.validate Timestamp rules in sentences.
func timestampNotes(tr *validate.TimestampRules) []string {
	s := func(t *timestamppb.Timestamp) string {
		return t.AsTime().UTC().Format("2006-01-02T15:04:05.999999999Z07:00")
	}
	var notes []string
	if tr.HasConst() {
		notes = append(notes, "Must be exactly "+s(tr.GetConst())+".")
	}
	if tr.HasGt() {
		notes = append(notes, "Must be after "+s(tr.GetGt())+".")
	}
	if tr.HasGte() {
		notes = append(notes, "Must be at or after "+s(tr.GetGte())+".")
	}
	if tr.HasLt() {
		notes = append(notes, "Must be before "+s(tr.GetLt())+".")
	}
	if tr.HasLte() {
		notes = append(notes, "Must be at or before "+s(tr.GetLte())+".")
	}
	if tr.GetGtNow() {
		notes = append(notes, "Must be in the future.")
	}
	if tr.GetLtNow() {
		notes = append(notes, "Must be in the past.")
	}
	if tr.HasWithin() {
		notes = append(notes, "Must be within "+durationJSON(tr.GetWithin())+" of now.")
	}
	return notes
}

// fieldMaskNotes says buf.validate FieldMask rules in sentences.
func fieldMaskNotes(fr *validate.FieldMaskRules) []string {
	var notes []string
	if fr.HasConst() {
		notes = append(notes, "Must be exactly "+strconv.Quote(strings.Join(fr.GetConst().GetPaths(), ","))+".")
	}
	if in := fr.GetIn(); len(in) > 0 {
		notes = append(notes, "Its paths must be among "+strings.Join(in, ", ")+".")
	}
	if notIn := fr.GetNotIn(); len(notIn) > 0 {
		notes = append(notes, "Its paths must not include "+strings.Join(notIn, ", ")+".")
	}
	return notes
}

func joinMap[T any](in []T, f func(T) string) string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return strings.Join(out, ", ")
}

// durationJSON writes d as protojson does, quoted: "3600s", "1.500s".
func durationJSON(d *durationpb.Duration) string {
	data, err := protojson.Marshal(d)
	if err != nil {
		return strconv.Quote(d.AsDuration().String())
	}
	return string(data)
}
