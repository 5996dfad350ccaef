package protoschema

import (
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// fieldBehavior is what google.api.field_behavior says of a field that
// the schemas use.
type fieldBehavior struct {
	required   bool // REQUIRED: required in inputs
	outputOnly bool // OUTPUT_ONLY: left out of inputs
	inputOnly  bool // INPUT_ONLY: said in the output's description
	immutable  bool // IMMUTABLE: said in the input's description
}

// readFieldBehavior reads fd's google.api.field_behavior. The options may
// hold the extension typed, dynamic or as unknown bytes (a descriptor
// built at run time or by a compiler), so they are marshalled and read
// back with the generated type.
func readFieldBehavior(fd protoreflect.FieldDescriptor) fieldBehavior {
	var fb fieldBehavior
	opts, ok := fd.Options().(*descriptorpb.FieldOptions)
	if !ok || opts == nil {
		return fb
	}
	data, err := proto.Marshal(opts)
	if err != nil {
		return fb
	}
	typed := &descriptorpb.FieldOptions{}
	if (proto.UnmarshalOptions{Resolver: protoregistry.GlobalTypes}).Unmarshal(data, typed) != nil {
		return fb
	}
	behaviors, _ := proto.GetExtension(typed, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	for _, b := range behaviors {
		switch b {
		case annotations.FieldBehavior_REQUIRED:
			fb.required = true
		case annotations.FieldBehavior_OUTPUT_ONLY:
			fb.outputOnly = true
		case annotations.FieldBehavior_INPUT_ONLY:
			fb.inputOnly = true
		case annotations.FieldBehavior_IMMUTABLE:
			fb.immutable = true
		}
	}
	return fb
}
