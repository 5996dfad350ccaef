package protoschema

import (
	"errors"
	"fmt"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// messageRules are a message's buf.validate rules; a nil r has none.
type messageRules struct {
	md protoreflect.MessageDescriptor
	r  *validate.MessageRules
}

func readMessageRules(md protoreflect.MessageDescriptor) (*messageRules, error) {
	r, err := protovalidate.ResolveMessageRules(md)
	if err != nil {
		return nil, fmt.Errorf("reading its buf.validate rules: %w", err)
	}
	return &messageRules{md: md, r: r}, nil
}

// notes returns the sentences for the message's CEL rules.
func (mr *messageRules) notes() []string {
	return celNotes(mr.r.GetCel(), mr.r.GetCelExpression())
}

// oneofRequired reports whether (buf.validate.oneof).required is set on od.
func (mr *messageRules) oneofRequired(od protoreflect.OneofDescriptor) bool {
	r, err := protovalidate.ResolveOneofRules(od)
	return err == nil && r.GetRequired()
}

// oneofGroups returns the message-level oneof rules as groups.
func (mr *messageRules) oneofGroups(md protoreflect.MessageDescriptor) []oneofGroup {
	var groups []oneofGroup
	for _, o := range mr.r.GetOneof() {
		g := oneofGroup{required: o.GetRequired()}
		for _, name := range o.GetFields() {
			if fd := md.Fields().ByName(protoreflect.Name(name)); fd != nil {
				g.fields = append(g.fields, fd)
			}
		}
		groups = append(groups, g)
	}
	return groups
}

// zeroBreaksRules returns the fields of md an input must hold: fields
// without presence whose zero value breaks their rules (a string with
// min_len 1, a number with gt 0, a list with min_items 1), since an absent
// field is its zero value to protovalidate. protovalidate itself is asked,
// with an empty message, so that CEL rules count too.
func zeroBreaksRules(v protovalidate.Validator, md protoreflect.MessageDescriptor) (map[protoreflect.Name]bool, error) {
	err := v.Validate(dynamicpb.NewMessage(md))
	var ve *protovalidate.ValidationError
	if err == nil || !errors.As(err, &ve) {
		if err != nil {
			return nil, fmt.Errorf("checking its buf.validate rules: %w", err)
		}
		return nil, nil
	}
	implied := map[protoreflect.Name]bool{}
	for _, viol := range ve.Violations {
		path := viol.Proto.GetField().GetElements()
		fd := viol.FieldDescriptor
		if len(path) != 1 || fd == nil || fd.ContainingMessage().FullName() != md.FullName() || fd.HasPresence() {
			continue
		}
		implied[fd.Name()] = true
	}
	return implied, nil
}

// hasFieldRules reports whether any field of md has buf.validate rules.
func hasFieldRules(md protoreflect.MessageDescriptor) bool {
	fields := md.Fields()
	for i := range fields.Len() {
		if r, err := protovalidate.ResolveFieldRules(fields.Get(i)); err == nil && r != nil {
			return true
		}
	}
	return false
}
