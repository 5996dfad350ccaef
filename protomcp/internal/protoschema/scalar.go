package protoschema

import (
	"encoding/json"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Patterns of the string forms protojson reads and writes.
const (
	signedPattern   = `^-?[0-9]+$`
	unsignedPattern = `^[0-9]+$`
	// floatPattern matches the strings protojson writes for the floating
	// values JSON has no number for.
	floatPattern     = `^(NaN|-?Infinity)$`
	base64Pattern    = `^[A-Za-z0-9+/_-]*={0,2}$`
	durationPattern  = `^-?[0-9]+(\.[0-9]{1,9})?s$`
	fieldMaskPath    = `[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*`
	fieldMaskPattern = `^(` + fieldMaskPath + `(,` + fieldMaskPath + `)*)?$`
)

// scalar returns the schema of a value of fd's scalar or enum type.
//
// 64-bit integers: protojson writes them as strings and reads numbers or
// strings, so an input accepts both (an integer, or a string of digits)
// and an output is a string. Floating values are numbers, or the strings
// "NaN", "Infinity" and "-Infinity". Bytes are base64 strings.
func scalar(fd protoreflect.FieldDescriptor, m mode) *node {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return &node{Type: types{"boolean"}}
	case protoreflect.StringKind:
		return &node{Type: types{"string"}}
	case protoreflect.BytesKind:
		return &node{Type: types{"string"}, ContentEncoding: "base64", Pattern: base64Pattern}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return &node{Type: types{"integer"}}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return &node{Type: types{"integer"}, Minimum: "0"}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if m == output {
			return &node{Type: types{"string"}, Pattern: signedPattern}
		}
		return &node{Type: types{"integer", "string"}, Pattern: signedPattern}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if m == output {
			return &node{Type: types{"string"}, Pattern: unsignedPattern}
		}
		return &node{Type: types{"integer", "string"}, Minimum: "0", Pattern: unsignedPattern}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return &node{Type: types{"number", "string"}, Pattern: floatPattern}
	case protoreflect.EnumKind:
		return enum(fd.Enum(), m)
	}
	return &node{} // groups are messages; nothing else remains
}

// enum returns the schema of an enum value: its names. protojson also reads
// numbers, but an input lists names only, which is what a model should
// send. An output of an open enum may also be a number, which protojson
// writes for a value the descriptor does not name.
func enum(ed protoreflect.EnumDescriptor, m mode) *node {
	if ed.FullName() == "google.protobuf.NullValue" {
		return &node{Type: types{"null"}}
	}
	names := enumNames(ed, nil)
	n := &node{Type: types{"string"}, Enum: names}
	if m == output && !ed.IsClosed() {
		return &node{AnyOf: []*node{n, {Type: types{"integer"}}}}
	}
	return n
}

// enumNames lists the names of ed's values, keeping only those keep
// accepts (all when keep is nil).
func enumNames(ed protoreflect.EnumDescriptor, keep func(protoreflect.EnumNumber) bool) []any {
	values := ed.Values()
	names := make([]any, 0, values.Len())
	for i := range values.Len() {
		v := values.Get(i)
		if keep == nil || keep(v.Number()) {
			names = append(names, string(v.Name()))
		}
	}
	return names
}

// mapKey returns the propertyNames schema for a map's key type, or nil for
// string keys. protojson writes every key as a string.
func mapKey(kd protoreflect.FieldDescriptor) *node {
	switch kd.Kind() {
	case protoreflect.BoolKind:
		return &node{Enum: []any{"true", "false"}}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return &node{Pattern: signedPattern}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return &node{Pattern: unsignedPattern}
	}
	return nil
}

// wellKnown returns the schema of a well-known type with a JSON form of its
// own, or nil for any other message.
func wellKnown(md protoreflect.MessageDescriptor, m mode) *node {
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return &node{Type: types{"string"}, Format: "date-time",
			Description: "A time in RFC 3339 form with a Z or an offset, such as 2026-07-28T09:30:00Z."}
	case "google.protobuf.Duration":
		return &node{Type: types{"string"}, Pattern: durationPattern,
			Description: `A duration in seconds with an "s" suffix, such as "1.5s" or "-30s".`}
	case "google.protobuf.Struct":
		return &node{Type: types{"object"}}
	case "google.protobuf.Value":
		return &node{Type: types{"object", "array", "string", "number", "boolean", "null"}}
	case "google.protobuf.ListValue":
		return &node{Type: types{"array"}}
	case "google.protobuf.FieldMask":
		return &node{Type: types{"string"}, Pattern: fieldMaskPattern,
			Description: `Field paths in lowerCamelCase, separated by commas, such as "displayName,address.city".`}
	case "google.protobuf.Empty":
		return &node{Type: types{"object"}, Properties: properties{}, AdditionalProperties: false}
	case "google.protobuf.Any":
		n := &node{Type: types{"object"},
			Properties: properties{{name: "@type", schema: &node{Type: types{"string"},
				Description: "The message's type URL, such as type.googleapis.com/google.protobuf.Duration."}}},
			Description: `A message of any type: "@type" names it, and its fields follow (or "value" holds a well-known type's JSON form).`}
		if m == input {
			n.Required = []string{"@type"}
		}
		return n
	}
	if w := wrapped(md); w != nil {
		n := scalar(w, m)
		n.nullable()
		return n
	}
	return nil
}

// wrapped returns the value field of a wrapper type (google.protobuf.
// Int64Value and the others), or nil.
func wrapped(md protoreflect.MessageDescriptor) protoreflect.FieldDescriptor {
	switch md.FullName() {
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue", "google.protobuf.Int64Value",
		"google.protobuf.UInt64Value", "google.protobuf.Int32Value", "google.protobuf.UInt32Value",
		"google.protobuf.BoolValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return md.Fields().ByName("value")
	}
	return nil
}

// jsonValue returns v as JSON.
func jsonValue(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}
