package protomcp

import (
	"fmt"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	ferrypb "github.com/ferry-mcp/ferry/protomcp/ferrypb/v1"
)

// optionTypes resolves the extensions Describe reads. Options are decoded
// again with it because a descriptor's options may hold them as unknown
// fields (a descriptor set decoded without them registered) or as dynamic
// messages (a compiler's own descriptors), and only this decoding gives the
// generated Go types in every case. It is never modified after init.
var optionTypes = func() *protoregistry.Types {
	types := new(protoregistry.Types)
	for _, xt := range []protoreflect.ExtensionType{
		ferrypb.E_Tool, ferrypb.E_MethodPrompts, ferrypb.E_Prompts,
		annotations.E_FieldBehavior, validate.E_Field,
	} {
		if err := types.RegisterExtension(xt); err != nil {
			panic(err) //nolint:forbidigo // distinct generated extensions: cannot fail
		}
	}
	return types
}()

// reparse decodes the options message src into dst with [optionTypes].
func reparse(d protoreflect.Descriptor, src, dst proto.Message) error {
	if src == nil || !src.ProtoReflect().IsValid() {
		return nil
	}
	b, err := proto.Marshal(src)
	if err == nil {
		err = proto.UnmarshalOptions{Resolver: optionTypes}.Unmarshal(b, dst)
	}
	if err != nil {
		return fmt.Errorf("protomcp: %s: reading its options: %w", d.FullName(), err)
	}
	return nil
}

// methodOptions returns md's options with Ferry's extensions decoded.
func methodOptions(md protoreflect.MethodDescriptor) (*descriptorpb.MethodOptions, error) {
	mo := &descriptorpb.MethodOptions{}
	return mo, reparse(md, md.Options(), mo)
}

// serviceOptions returns sd's options with Ferry's extensions decoded.
func serviceOptions(sd protoreflect.ServiceDescriptor) (*descriptorpb.ServiceOptions, error) {
	so := &descriptorpb.ServiceOptions{}
	return so, reparse(sd, sd.Options(), so)
}

// toolOption returns the (ferry.v1.tool) option of mo, nil if unset.
func toolOption(mo *descriptorpb.MethodOptions) *ferrypb.ToolOptions {
	opt, _ := proto.GetExtension(mo, ferrypb.E_Tool).(*ferrypb.ToolOptions)
	return opt
}

// fieldRequired reports whether fd is google.api.field_behavior REQUIRED
// or (buf.validate.field).required.
func fieldRequired(fd protoreflect.FieldDescriptor) (bool, error) {
	fo := &descriptorpb.FieldOptions{}
	if err := reparse(fd, fd.Options(), fo); err != nil {
		return false, err
	}
	behaviors, _ := proto.GetExtension(fo, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	for _, b := range behaviors {
		if b == annotations.FieldBehavior_REQUIRED {
			return true, nil
		}
	}
	rules, _ := proto.GetExtension(fo, validate.E_Field).(*validate.FieldRules)
	return rules.GetRequired(), nil
}
