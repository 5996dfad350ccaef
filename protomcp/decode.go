package protomcp

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"slices"
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

func newDecoder(md protoreflect.MessageDescriptor) *decoder {
	d := &decoder{known: map[protoreflect.FullName]string{}}
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
	var doc any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return schema.Errors{{Message: "arguments are not valid JSON: " + err.Error()}}
	}
	var errs schema.Errors
	d.message(&errs, nil, m.ProtoReflect().Descriptor(), doc, 0)
	if len(errs) > 0 {
		return errs
	}
	if err := d.opts.Unmarshal(args, m); err != nil {
		// What the walk above does not check (the forms of the well-known
		// types): protojson's own sentence.
		return schema.Errors{{Message: protojsonMessage(err)}}
	}
	return nil
}

func (d *decoder) fail(errs *schema.Errors, p path, msg string) {
	*errs = append(*errs, &schema.Error{Path: p.String(), Message: msg})
}

func (d *decoder) message(errs *schema.Errors, p path, md protoreflect.MessageDescriptor, v any, depth int) {
	if depth > maxDepth {
		d.fail(errs, p, "is nested more than "+strconv.Itoa(maxDepth)+" levels deep")
		return
	}
	if wellKnown(md) {
		d.wellKnown(errs, p, md, v)
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		d.fail(errs, p, "must be an object, got "+show(v))
		return
	}
	fields := md.Fields()
	oneofs := map[protoreflect.FullName]string{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
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
		fv := obj[k]
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

func (d *decoder) field(errs *schema.Errors, p path, fd protoreflect.FieldDescriptor, v any, depth int) {
	switch {
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		if !ok {
			d.fail(errs, p, "must be an object, got "+show(v))
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			kp := p.field(k)
			if msg := mapKey(fd.MapKey(), k); msg != "" {
				d.fail(errs, kp, msg)
				continue
			}
			if obj[k] == nil && !isValue(fd.MapValue()) {
				d.fail(errs, kp, "must not be null")
				continue
			}
			d.single(errs, kp, fd.MapValue(), obj[k], depth+1)
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
func (d *decoder) single(errs *schema.Errors, p path, fd protoreflect.FieldDescriptor, v any, depth int) {
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
		if _, ok := v.(string); !ok {
			msg = "must be a string (base64), got " + show(v)
		}
	case protoreflect.EnumKind:
		msg = enumValue(fd.Enum(), v)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		msg = floatValue(v)
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
		if _, err := strconv.ParseInt(string(x), 10, 32); err == nil {
			return "" // protojson accepts numbers, known or not (open enums)
		}
	}
	names := make([]string, values.Len())
	for i := range values.Len() {
		names[i] = strconv.Quote(string(values.Get(i).Name()))
	}
	return "must be one of: " + strings.Join(names, ", ") + ", got " + show(v)
}

// floatValue checks a float or double: a number, or a string protojson
// reads as one.
func floatValue(v any) string {
	switch x := v.(type) {
	case json.Number:
		return ""
	case string:
		switch x {
		case "NaN", "Infinity", "-Infinity":
			return ""
		}
		if _, err := strconv.ParseFloat(x, 64); err == nil {
			return ""
		}
	}
	return "must be a number, got " + show(v)
}

// intValue checks an integer in [lo, hi], given as a number or, as
// protojson allows (and as 64-bit integers are written), as a string.
func intValue(v any, lo, hi float64, wide bool) string {
	var lit string
	switch x := v.(type) {
	case json.Number:
		lit = string(x)
	case string:
		lit = x
	default:
		want := "an integer"
		if wide {
			want = "an integer (a string of digits)"
		}
		return "must be " + want + ", got " + show(v)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || f != math.Trunc(f) || strings.ContainsAny(lit, " \t") {
		return "must be an integer, got " + show(v)
	}
	if f < lo || f > hi {
		return "must be between " + strconv.FormatFloat(lo, 'f', -1, 64) + " and " + strconv.FormatFloat(hi, 'f', -1, 64) + ", got " + show(v)
	}
	if wide && lo >= 0 && strings.HasPrefix(lit, "-") {
		return "must be at least 0, got " + show(v)
	}
	return ""
}

// mapKey checks a map key against the key's kind; the keys of a JSON
// object are strings, which protojson reads as the key type.
func mapKey(fd protoreflect.FieldDescriptor, k string) string {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if k != "true" && k != "false" {
			return "is not allowed: the keys of this map are true or false"
		}
	case protoreflect.StringKind:
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if _, err := strconv.ParseInt(k, 10, 64); err != nil || intValue(k, intLo(fd), intHi(fd), true) != "" {
			return "is not allowed: the keys of this map are integers"
		}
	default:
		if _, err := strconv.ParseUint(k, 10, 64); err != nil || intValue(k, 0, intHi(fd), true) != "" {
			return "is not allowed: the keys of this map are integers of at least 0"
		}
	}
	return ""
}

func intLo(fd protoreflect.FieldDescriptor) float64 {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return math.MinInt32
	}
	return math.MinInt64
}

func intHi(fd protoreflect.FieldDescriptor) float64 {
	switch fd.Kind() {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return math.MaxInt32
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return math.MaxUint32
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return math.MaxUint64
	}
	return math.MaxInt64
}

// wellKnown checks a value of a well-known type, which has a JSON form of
// its own (a Timestamp is a string, a Struct any object), with protojson,
// and reports its sentence at the value's path.
func (d *decoder) wellKnown(errs *schema.Errors, p path, md protoreflect.MessageDescriptor, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		d.fail(errs, p, "is not a JSON value")
		return
	}
	if err := d.opts.Unmarshal(data, dynamicpb.NewMessage(md)); err != nil {
		d.fail(errs, p, protojsonMessage(err))
	}
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
