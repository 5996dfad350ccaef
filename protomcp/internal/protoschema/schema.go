package protoschema

import (
	"encoding/json"
	"fmt"

	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Defaults of [Options].
const (
	// DefaultRecursion is how many times a message that contains itself is
	// expanded inside itself.
	DefaultRecursion = 1
	// DefaultMaxDepth is how deep messages nest before the rest is cut.
	DefaultMaxDepth = 32
	// DefaultMaxNodes is how many subschemas one schema holds at most.
	DefaultMaxNodes = 4096
)

// Options adjust the schemas: [Options.Input] and [Options.Output] are
// [Input] and [Output] with them. A nil *Options means the defaults.
type Options struct {
	// Recursion is how many times a message that contains itself, directly
	// or through others, is expanded inside itself; the next occurrence is
	// an open object whose description says it was cut. If zero, defaults
	// to [DefaultRecursion]; a negative value cuts at the first
	// recurrence.
	Recursion int
	// MaxDepth is how many messages deep the schema goes; deeper messages
	// are open objects. If zero, defaults to [DefaultMaxDepth].
	MaxDepth int
	// MaxNodes bounds the number of subschemas in one schema: once it is
	// reached, the messages not yet expanded are open objects. If zero,
	// defaults to [DefaultMaxNodes].
	MaxNodes int
	// Validator is asked which fields an empty message breaks the rules
	// of (see the package doc on required). It must have been built with
	// lazy compilation (the default) or know every message given. If nil,
	// each call makes one; a caller building many schemas, such as one per
	// method of a service, saves time by sharing one. For messages with
	// predefined rules it needs protovalidate.WithExtensionTypeResolver
	// with the rules' extensions (the validator made here resolves those
	// the message's file imports).
	Validator protovalidate.Validator
	// Description returns the description of a message or field. If nil,
	// the leading comment (or else the trailing one) from the file's source
	// info is used; descriptors without source info have none.
	Description func(protoreflect.Descriptor) string
}

// mode says which side of a call a schema describes.
type mode int

const (
	input  mode = iota // arguments a client sends: protojson's decoder reads them
	output             // a response: protojson's encoder wrote it
)

// Input returns the JSON Schema of md as a tool's input, in the protojson
// mapping: OUTPUT_ONLY fields are left out, REQUIRED fields and the fields
// buf.validate requires are required, and buf.validate rules are schema
// keywords (or sentences in the description where no keyword exists).
// The schema is a JSON object; it has no $ref and no boolean subschemas
// except additionalProperties false, and no description longer than 1024
// characters. It returns an error if md has rules protovalidate cannot
// read or that do not fit the field's type.
func Input(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	return (*Options)(nil).Input(md)
}

// Output returns the JSON Schema of md as a tool's output: the JSON
// protojson's encoder writes for md with its default options (or with
// EmitDefaultValues). INPUT_ONLY fields are kept, since the encoder writes
// whatever is set, with a sentence saying so; no field is required (protojson leaves unset and
// zero fields out) and buf.validate rules are not applied (a server does
// not validate its responses, and a client that checks the structured
// content against the schema must not refuse one), but their sentences
// stay in the descriptions.
func Output(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	return (*Options)(nil).Output(md)
}

// Input is [Input] with the options o; o may be nil.
func (o *Options) Input(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	return build(md, input, o)
}

// Output is [Output] with the options o; o may be nil.
func (o *Options) Output(md protoreflect.MessageDescriptor) (json.RawMessage, error) {
	return build(md, output, o)
}

func build(md protoreflect.MessageDescriptor, m mode, opts *Options) (json.RawMessage, error) {
	b := newBuilder(m, opts)
	if f := md.ParentFile(); f != nil {
		b.types = &fileExtensions{file: f}
	}
	root, err := b.message(md)
	if err != nil {
		return nil, fmt.Errorf("protoschema: %s: %w", md.FullName(), err)
	}
	if len(root.Type) != 1 || root.Type[0] != "object" {
		// A well-known type whose JSON form is not an object (Timestamp,
		// Value, a wrapper) cannot be a tool's arguments.
		return nil, fmt.Errorf("protoschema: %s: its JSON form is not an object, so it cannot be a tool's input or output", md.FullName())
	}
	data, err := marshal(root)
	if err != nil {
		return nil, fmt.Errorf("protoschema: %s: %w", md.FullName(), err)
	}
	return data, nil
}
