// Package protoschema maps protobuf message descriptors to JSON Schemas in
// the protojson mapping.
package protoschema

import (
	"encoding/json"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// Input returns the JSON Schema of md as a tool's input: OUTPUT_ONLY fields
// left out, REQUIRED fields and buf.validate rules applied.
//
// TODO(pschema): the mapping; today every message is an open object.
func Input(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	return json.RawMessage(`{"type":"object"}`), nil
}

// Output returns the JSON Schema of md as a tool's output.
//
// TODO(pschema): the mapping; today every message is an open object.
func Output(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	return json.RawMessage(`{"type":"object"}`), nil
}
