package protomcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/schema"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// maxDepth bounds how deeply the arguments may nest, as protojson's own
// default limit does, so that a hostile document cannot exhaust the stack.
const maxDepth = 100

// decoder turns a tool call's arguments into a request message, strictly:
// every unknown field, every value of the wrong type and every enum name
// that does not exist is reported with its path, all at once, in the
// sentences of the root's schema errors.
type decoder struct {
	// known caches the listing of each message's properties for the
	// "known properties" sentence; it is filled at registration and only
	// read afterwards.
	known map[protoreflect.FullName]string
	opts  protojson.UnmarshalOptions
}

// newDecoder returns the decoder of md's messages; types resolves the
// messages a google.protobuf.Any may hold.
func newDecoder(md protoreflect.MessageDescriptor, types *typeResolver) *decoder {
	d := &decoder{known: map[protoreflect.FullName]string{}, opts: protojson.UnmarshalOptions{RecursionLimit: maxDepth, Resolver: types}}
	d.index(md, 0)
	return d
}

// index lists the properties of md and every message it reaches.
func (d *decoder) index(md protoreflect.MessageDescriptor, depth int) {
	if _, done := d.known[md.FullName()]; done || depth > maxDepth || wellKnown(md) {
		return
	}
	fields := md.Fields()
	names := make([]string, 0, fields.Len())
	for i := range fields.Len() {
		names = append(names, fields.Get(i).JSONName())
	}
	d.known[md.FullName()] = strings.Join(names, ", ")
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Message() != nil {
			d.index(fd.Message(), depth+1)
		}
	}
}

// decode fills m from args. It returns the violations found; when there
// are none, m holds the request.
func (d *decoder) decode(args json.RawMessage, m proto.Message) schema.Errors {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	// protojson, strict, reads a valid request in one pass; the walk
	// below only runs for a request it refuses, to say where and why.
	err := d.opts.Unmarshal(args, m)
	if err == nil {
		return nil
	}
	doc, derr := readDocument(args)
	if derr != nil {
		return schema.Errors{{Message: "arguments are not valid JSON: " + derr.Error()}}
	}
	var errs errorList
	d.message(&errs, "", m.ProtoReflect().Descriptor(), doc, 0)
	if len(errs.errs) > 0 {
		return errs.list()
	}
	// What the walk does not check: the text of strings, and then
	// protojson's own sentence.
	return schema.Errors{{Message: unexplained(err)}}
}

// unexplained writes protojson's refusal of a document that is valid JSON
// and that the walk found nothing wrong with: a string that is not UTF-8,
// or an escape of half a UTF-16 pair, which encoding/json reads as U+FFFD
// and protojson refuses, with "unexpected EOF" for the latter.
func unexplained(err error) string {
	msg := protojsonMessage(err)
	switch {
	case msg == "unexpected EOF":
		return `arguments: a string holds a \u escape that is not a character (a lone UTF-16 surrogate)`
	case strings.HasSuffix(msg, "invalid UTF-8 in string"):
		return "arguments: a string is not valid UTF-8"
	}
	return msg
}

// lenient fills m from args as protojson does when told to discard unknown
// fields, and reports whether it could: after decode refused only unknown
// fields, the rest of the request can still be checked against its rules,
// so that the model reads every problem at once.
func (d *decoder) lenient(args json.RawMessage, m proto.Message) bool {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	opts := d.opts // the same depth bound and Any types
	opts.DiscardUnknown = true
	return opts.Unmarshal(args, m) == nil
}

func (d *decoder) fail(errs *errorList, p path, msg string) {
	errs.add(&schema.Error{Path: p.String(), Message: msg})
}

func (d *decoder) message(errs *errorList, p path, md protoreflect.MessageDescriptor, v any, depth int) {
	if _, deep := v.(tooDeep); deep || depth > maxDepth {
		d.fail(errs, p, "is nested more than "+strconv.Itoa(maxDepth)+" levels deep")
		return
	}
	if wellKnown(md) {
		d.wellKnown(errs, p, md, v, depth)
		return
	}
	obj, ok := v.(*object)
	if !ok {
		d.fail(errs, p, "must be an object, got "+show(v))
		return
	}
	fields := md.Fields()
	oneofs := map[protoreflect.FullName]string{}
	seen := make(map[protoreflect.FieldNumber]string, len(obj.members))
	for _, mem := range obj.members {
		k, fv := mem.key, mem.value
		fd := fields.ByJSONName(k)
		if fd == nil {
			fd = fields.ByTextName(k)
		}
		fp := p.field(k)
		if fd == nil {
			msg := "is not allowed: unknown property " + strconv.Quote(k)
			if known := d.known[md.FullName()]; known != "" {
				msg += "; known properties: " + known
			} else {
				msg += "; this object takes no properties"
			}
			d.fail(errs, fp, msg)
			continue
		}
		if first, dup := seen[fd.Number()]; dup {
			d.fail(errs, fp, "is not allowed: the field is already given as "+strconv.Quote(first))
			continue
		}
		seen[fd.Number()] = k
		if fv == nil && !isValue(fd) {
			continue // null stands for the default
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if other, dup := oneofs[od.FullName()]; dup {
				d.fail(errs, fp, "is not allowed with "+strconv.Quote(other)+": they are in the oneof "+string(od.Name())+", set at most one")
				continue
			}
			oneofs[od.FullName()] = k
		}
		d.field(errs, fp, fd, fv, depth)
	}
}

func (d *decoder) field(errs *errorList, p path, fd protoreflect.FieldDescriptor, v any, depth int) {
	switch {
	case fd.IsMap():
		obj, ok := v.(*object)
		if !ok {
			d.fail(errs, p, "must be an object, got "+show(v))
			return
		}
		keys := make(map[string]bool, len(obj.members))
		for _, mem := range obj.members {
			k := mem.key
			kp := p.field(k)
			if msg := mapKey(fd.MapKey(), k); msg != "" {
				d.fail(errs, kp, msg)
				continue
			}
			if keys[k] {
				d.fail(errs, kp, "is not allowed: the key is given twice")
				continue
			}
			keys[k] = true
			if mem.value == nil && !isValue(fd.MapValue()) {
				d.fail(errs, kp, "must not be null")
				continue
			}
			d.single(errs, kp, fd.MapValue(), mem.value, depth+1)
		}
	case fd.IsList():
		list, ok := v.([]any)
		if !ok {
			d.fail(errs, p, "must be an array, got "+show(v))
			return
		}
		for i, e := range list {
			if e == nil && !isValue(fd) {
				d.fail(errs, p.index(i), "must not be null")
				continue
			}
			d.single(errs, p.index(i), fd, e, depth+1)
		}
	default:
		d.single(errs, p, fd, v, depth)
	}
}

// single checks one value of fd's kind.
func (d *decoder) single(errs *errorList, p path, fd protoreflect.FieldDescriptor, v any, depth int) {
	var msg string
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		d.message(errs, p, fd.Message(), v, depth+1)
		return
	case protoreflect.BoolKind:
		if _, ok := v.(bool); !ok {
			msg = "must be a boolean, got " + show(v)
		}
	case protoreflect.StringKind:
		if _, ok := v.(string); !ok {
			msg = "must be a string, got " + show(v)
		}
	case protoreflect.BytesKind:
		msg = bytesValue(v)
	case protoreflect.EnumKind:
		msg = enumValue(fd.Enum(), v)
	case protoreflect.FloatKind:
		msg = floatValue(v, 32)
	case protoreflect.DoubleKind:
		msg = floatValue(v, 64)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		msg = intValue(v, math.MinInt32, math.MaxInt32, false)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		msg = intValue(v, 0, math.MaxUint32, false)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		msg = intValue(v, math.MinInt64, math.MaxInt64, true)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		msg = intValue(v, 0, math.MaxUint64, true)
	}
	if msg != "" {
		d.fail(errs, p, msg)
	}
}

// enumValue checks an enum given by name or number.
func enumValue(ed protoreflect.EnumDescriptor, v any) string {
	values := ed.Values()
	switch x := v.(type) {
	case string:
		if values.ByName(protoreflect.Name(x)) != nil {
			return ""
		}
	case json.Number:
		if intValue(x, math.MinInt32, math.MaxInt32, false) == "" {
			return "" // protojson accepts int32 numbers (1, 1.0, 1e0), known or not (open enums)
		}
	}
	names := make([]string, values.Len())
	for i := range values.Len() {
		names[i] = strconv.Quote(string(values.Get(i).Name()))
	}
	return "must be one of: " + strings.Join(names, ", ") + ", got " + show(v)
}

// bytesValue checks bytes: a string of base64, standard or URL-safe,
// padded or not, as protojson reads it.
func bytesValue(v any) string {
	x, ok := v.(string)
	if !ok {
		return "must be a string (base64), got " + show(v)
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(x, "-_") {
		enc = base64.URLEncoding
	}
	if len(x)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	if _, err := enc.DecodeString(x); err != nil {
		return "must be base64 (standard or URL-safe), got " + show(v)
	}
	return ""
}

// floatValue checks a float (bits 32) or double (bits 64): a number, or a
// string protojson reads as one, within the type's range.
func floatValue(v any, bits int) string {
	var lit string
	switch x := v.(type) {
	case json.Number:
		lit = string(x)
	case string:
		switch x {
		case "NaN", "Infinity", "-Infinity":
			return ""
		}
		if !numberLiteral(x) {
			return "must be a number, got " + show(v)
		}
		lit = x
	default:
		return "must be a number, got " + show(v)
	}
	if _, err := strconv.ParseFloat(lit, bits); err != nil {
		most := strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)
		if bits == 32 {
			most = strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32)
		}
		return "must be between -" + most + " and " + most + ", got " + show(v)
	}
	return ""
}

// numberLiteral reports whether s is written as one JSON number, the only
// form protojson reads inside a string: "01", ".5", "1.", "+1", "inf" and
// " 1" are not.
func numberLiteral(s string) bool {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return false
	}
	return json.Valid([]byte(s))
}

// intValue checks an integer in [lo, hi], given as a number or, as
// protojson allows (and as 64-bit integers are written), as a string. A
// literal of digits is compared exactly; one with a fraction or an exponent
// ("1e3", which protojson reads as 1000) by its value.
func intValue(v any, lo int64, hi uint64, wide bool) string {
	var lit string
	switch x := v.(type) {
	case json.Number:
		lit = string(x)
	case string:
		if !numberLiteral(x) {
			return "must be an integer, got " + show(v)
		}
		lit = x
	default:
		want := "an integer"
		if wide {
			want = "an integer (a string of digits)"
		}
		return "must be " + want + ", got " + show(v)
	}
	notInt := "must be an integer, got " + show(v)
	outside := "must be between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatUint(hi, 10) + ", got " + show(v)
	if strings.ContainsAny(lit, ".eE") {
		f, err := strconv.ParseFloat(lit, 64)
		switch {
		case err != nil || f != math.Trunc(f) || math.IsInf(f, 0):
			return notInt
		case f < float64(lo) || f > float64(hi):
			return outside
		}
		return ""
	}
	if neg, ok := strings.CutPrefix(lit, "-"); ok {
		n, err := strconv.ParseUint(neg, 10, 64)
		switch {
		case errors.Is(err, strconv.ErrRange):
			return outside
		case err != nil:
			return notInt
		case n == 0:
			return ""
		case lo >= 0 || n-1 > uint64(-(lo+1)):
			return outside
		}
		return ""
	}
	n, err := strconv.ParseUint(lit, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return outside
	case err != nil:
		return notInt
	case n > hi:
		return outside
	}
	return ""
}

// mapKey checks a map key against the key's kind; the keys of a JSON
// object are strings, which protojson reads as the key type with strconv
// (so "01" is a key 1), hence json.Number: not held to the JSON grammar.
func mapKey(fd protoreflect.FieldDescriptor, k string) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if k != "true" && k != "false" {
			return "is not allowed: the keys of this map are true or false"
		}
	case protoreflect.StringKind:
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if strings.ContainsAny(k, ".eE") || intValue(json.Number(k), math.MinInt32, math.MaxInt32, false) != "" {
			return "is not allowed: the keys of this map are integers from -2147483648 to 2147483647"
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if strings.ContainsAny(k, ".eE") || intValue(json.Number(k), math.MinInt64, math.MaxInt64, true) != "" {
			return "is not allowed: the keys of this map are integers"
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if strings.ContainsAny(k, ".eE") || intValue(json.Number(k), 0, math.MaxUint32, false) != "" {
			return "is not allowed: the keys of this map are integers from 0 to 4294967295"
		}
	default:
		if strings.ContainsAny(k, ".eE") || intValue(json.Number(k), 0, math.MaxUint64, true) != "" {
			return "is not allowed: the keys of this map are integers of at least 0"
		}
	}
	return ""
}

// wellKnown checks a value of a well-known type, which has a JSON form of
// its own (a Timestamp is a string, a Struct any object), with protojson,
// and reports its sentence at the value's path.
func (d *decoder) wellKnown(errs *errorList, p path, md protoreflect.MessageDescriptor, v any, depth int) {
	if wrapper[md.FullName()] { // the JSON form of the value it wraps
		d.single(errs, p, md.Fields().ByName("value"), v, depth)
		return
	}
	if form, ok := wellKnownForms[md.FullName()]; ok && !form.is(v) {
		d.fail(errs, p, "must be "+form.want+", got "+show(v))
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		d.fail(errs, p, "is not a JSON value")
		return
	}
	if err := d.opts.Unmarshal(data, dynamicpb.NewMessage(md)); err != nil {
		d.fail(errs, p, protojsonMessage(err))
	}
}

// wrapper holds the wrapper types, written as the value they wrap.
var wrapper = map[protoreflect.FullName]bool{
	"google.protobuf.DoubleValue": true, "google.protobuf.FloatValue": true,
	"google.protobuf.Int64Value": true, "google.protobuf.UInt64Value": true,
	"google.protobuf.Int32Value": true, "google.protobuf.UInt32Value": true,
	"google.protobuf.BoolValue": true, "google.protobuf.StringValue": true,
	"google.protobuf.BytesValue": true,
}

// jsonForm is the kind of JSON value a well-known type is written as, so
// that a value of another kind is refused in the walk's sentence rather
// than with protojson's "syntax error" about a fragment the model never
// wrote.
type jsonForm struct {
	want string
	is   func(v any) bool
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isObject(v any) bool { _, ok := v.(*object); return ok }
func isArray(v any) bool  { _, ok := v.([]any); return ok }

var wellKnownForms = map[protoreflect.FullName]jsonForm{
	"google.protobuf.Duration":  {`a string of seconds such as "1.5s"`, isString},
	"google.protobuf.Timestamp": {`an RFC 3339 string such as "2024-01-02T15:04:05Z"`, isString},
	"google.protobuf.FieldMask": {`a string of comma-separated field paths such as "a.b,c"`, isString},
	"google.protobuf.Struct":    {"an object", isObject},
	"google.protobuf.Any":       {`an object with an "@type"`, isObject},
	"google.protobuf.Empty":     {"an empty object", isObject},
	"google.protobuf.ListValue": {"an array", isArray},
}

// protojsonMessage strips protojson's prefix and position from its error.
func protojsonMessage(err error) string {
	msg := strings.TrimSpace(strings.ReplaceAll(strings.TrimPrefix(err.Error(), "proto:"), "\u00a0", " "))
	if strings.HasPrefix(msg, "(line ") {
		if _, rest, ok := strings.Cut(msg, "): "); ok {
			msg = rest
		}
	}
	return msg
}

// wellKnown reports whether md is a google.protobuf type with a JSON form
// of its own, left to protojson.
func wellKnown(md protoreflect.MessageDescriptor) bool {
	return md.ParentFile() != nil && md.ParentFile().Package() == "google.protobuf"
}

// isValue reports whether fd holds a google.protobuf.Value (or NullValue),
// for which null is a value and not the default.
func isValue(fd protoreflect.FieldDescriptor) bool {
	switch {
	case fd.Message() != nil:
		return fd.Message().FullName() == "google.protobuf.Value"
	case fd.Enum() != nil:
		return fd.Enum().FullName() == "google.protobuf.NullValue"
	}
	return false
}

// show writes a value for a message, cut as the root's messages cut it.
func show(v any) string {
	if v == nil {
		return "null"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return "a value"
	}
	s := []rune(string(data))
	if len(s) <= 40 {
		return string(s)
	}
	return string(s[:39]) + "…"
}
