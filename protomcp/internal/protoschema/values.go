package protoschema

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// maxExamples is how many of a rule's examples a schema lists.
const maxExamples = 5

// examples returns the example values of r's typed rules (the example
// field every rule type has) in the protojson form of a value of fd's
// type, or nil.
func examples(r *validate.FieldRules, fd protoreflect.FieldDescriptor) []json.RawMessage {
	if r == nil {
		return nil
	}
	rm := r.ProtoReflect()
	which := rm.WhichOneof(rm.Descriptor().Oneofs().ByName("type"))
	if which == nil {
		return nil
	}
	typed := rm.Get(which).Message()
	ex := typed.Descriptor().Fields().ByName("example")
	if ex == nil || !typed.Has(ex) {
		return nil
	}
	list := typed.Get(ex).List()
	var out []json.RawMessage
	for i := range min(list.Len(), maxExamples) {
		if v := valueJSON(list.Get(i), fd); v != nil {
			out = append(out, v)
		}
	}
	return out
}

// valueJSON writes a scalar, enum or well-known message value as
// protojson does for a field like fd; nil if it cannot.
func valueJSON(v protoreflect.Value, fd protoreflect.FieldDescriptor) json.RawMessage {
	switch x := v.Interface().(type) {
	case string:
		return jsonValue(x)
	case []byte:
		return jsonValue(base64.StdEncoding.EncodeToString(x))
	case bool:
		return jsonValue(x)
	case protoreflect.EnumNumber:
		return enumJSON(int32(x), fd)
	case int32:
		return enumJSON(x, fd)
	case uint32:
		return jsonValue(x)
	case int64:
		return jsonValue(strconv.FormatInt(x, 10))
	case uint64:
		return jsonValue(strconv.FormatUint(x, 10))
	case float32:
		return floatJSON(float64(x), 32)
	case float64:
		return floatJSON(x, 64)
	case protoreflect.Message:
		data, err := protojson.Marshal(x.Interface())
		if err != nil {
			return nil
		}
		return data
	}
	return nil
}

// enumJSON writes n as the name of fd's enum value, or as a number when fd
// is not an enum field.
func enumJSON(n int32, fd protoreflect.FieldDescriptor) json.RawMessage {
	if ed := fd.Enum(); ed != nil {
		if v := ed.Values().ByNumber(protoreflect.EnumNumber(n)); v != nil {
			return jsonValue(string(v.Name()))
		}
	}
	return jsonValue(n)
}

func floatJSON(f float64, bits int) json.RawMessage {
	switch {
	case math.IsNaN(f):
		return jsonValue("NaN")
	case math.IsInf(f, 1):
		return jsonValue("Infinity")
	case math.IsInf(f, -1):
		return jsonValue("-Infinity")
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, bits))
}

// defaultJSON returns fd's explicit default (proto2 [default = …]) as
// protojson writes the value, or nil.
func defaultJSON(fd protoreflect.FieldDescriptor) json.RawMessage {
	if !fd.HasDefault() || fd.IsList() || fd.IsMap() || fd.Message() != nil {
		return nil
	}
	if fd.Enum() != nil {
		return jsonValue(string(fd.DefaultEnumValue().Name()))
	}
	return valueJSON(fd.Default(), fd)
}

// deprecated reports whether fd is marked deprecated.
func deprecated(fd protoreflect.FieldDescriptor) bool {
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	return ok && opts.GetDeprecated()
}
