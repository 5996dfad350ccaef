package protomcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"buf.build/go/protovalidate"
	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// AddService registers on srv a tool for every [ToolSpec] of spec and a
// prompt for every [PromptSpec], calling the methods through d. It finds
// the service and its messages by name in [Options.Files]; a service,
// method or message it cannot find, a streaming method, or a problem with
// the options is returned as an error naming it, and nothing is
// registered. Problems of the tools and prompts themselves (a name the
// protocol refuses, a schema that is not an object) are reported by
// [ferry.Server.Check], as for any tool.
//
// A call's arguments are decoded with protojson strictly: an unknown
// field, a value of the wrong type or an enum name that does not exist is
// refused with its path ("items[2].sku: ..."), every one at once, in the
// sentences of the root's schema errors, and the method is not called.
// The request is then checked with protovalidate (the buf.validate rules,
// CEL expressions included); each violation is reported with its path in
// the same form. Then d is called with the request and the headers that
// travel with it (see [Dispatcher]): Mcp-Tool, Mcp-Session-Id when the
// call has a session, traceparent and tracestate when the MCP request
// carried them, its Authorization and Cookie when d serves the call in the
// process (not with [Client]), [Options.Forward] and the fixed
// [Options.Header].
//
// The response is the result's structured content, marshalled with
// protojson (JSON names, fields at their default value left out, as the
// output schema allows), and the same JSON is its text block. An error is
// mapped by its Connect code (see [RefusalCode]): a refusal reading
// "code: status message", with the field violations of a
// google.rpc.BadRequest detail listed; the other codes are masked from
// the model and logged with a reference, as for any tool error.
func AddService(srv *ferry.Server, spec *ServiceSpec, d Dispatcher, opts *Options) error {
	if srv == nil || spec == nil || d == nil {
		return errors.New("protomcp: AddService needs a server, a spec and a dispatcher")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Files == nil {
		o.Files = protoregistry.GlobalFiles
	}
	if o.Types == nil {
		o.Types = protoregistry.GlobalTypes
	}
	cd, isConnect := d.(*connectDispatcher)
	hdr, err := newHeaders(o.Forward, o.Header, isConnect && cd.remote)
	problems := []error{err}
	desc, err := o.Files.FindDescriptorByName(spec.Service)
	if err != nil {
		return errors.Join(append(problems, fmt.Errorf("protomcp: service %s: not found in the descriptors (is its .pb.go imported?): %w", spec.Service, err))...)
	}
	sd, ok := desc.(protoreflect.ServiceDescriptor)
	if !ok {
		return errors.Join(append(problems, fmt.Errorf("protomcp: %s is not a service", spec.Service))...)
	}
	extensions, err := newExtensionResolver(sd.ParentFile())
	if err != nil {
		return fmt.Errorf("protomcp: service %s: the extensions of its files: %w", spec.Service, err)
	}
	types := newTypeResolver(sd.ParentFile(), o.Types, extensions)
	tools := make([]*tool, 0, len(spec.Tools))
	var inputs []protoreflect.MessageDescriptor
	for i := range spec.Tools {
		t, err := newTool(&spec.Tools[i], sd, &o, d, hdr, types)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		tools = append(tools, t)
		inputs = append(inputs, t.method.Input())
	}
	prompts, err := newPrompts(spec)
	problems = append(problems, err)
	if err := errors.Join(problems...); err != nil {
		return err
	}
	v, err := newValidator(extensions, inputs)
	if err != nil {
		return fmt.Errorf("protomcp: service %s: %w", spec.Service, err)
	}
	for _, t := range tools { // compile every request's rules now, not at the first call
		if _, err := violations(v, t.in.New().Interface()); err != nil {
			return fmt.Errorf("protomcp: tool %q: the buf.validate rules of %s do not compile: %w", t.spec.Name, t.method.Input().FullName(), err)
		}
	}
	group := ServiceGroup(sd.Name())
	for _, t := range tools {
		t.validator = v
		ft := t.ferryTool()
		if ft.Groups == nil {
			ft.Groups = []string{} // none: not the group of this package, which would be every service's
			if group != "" {
				ft.Groups = []string{group}
			}
		}
		srv.AddTool(ft, t.call)
	}
	for _, p := range prompts {
		srv.AddPromptTemplate(p)
	}
	return nil
}

// newValidator returns the one validator of a service's requests, which
// resolves the predefined rules of the files the service's file sees.
func newValidator(resolver *extensionResolver, inputs []protoreflect.MessageDescriptor) (protovalidate.Validator, error) {
	v, err := protovalidate.New(protovalidate.WithMessageDescriptors(inputs...), protovalidate.WithExtensionTypeResolver(resolver))
	if err != nil {
		return nil, fmt.Errorf("its buf.validate rules do not compile: %w", err)
	}
	return v, nil
}

// tool is one registered method: everything its calls need, resolved at
// registration and only read by calls, so calls run concurrently.
type tool struct {
	spec      *ToolSpec
	method    protoreflect.MethodDescriptor
	in, out   protoreflect.MessageType
	dec       *decoder
	validator protovalidate.Validator
	d         Dispatcher
	hdr       *headers
	marshal   protojson.MarshalOptions
}

func newTool(ts *ToolSpec, sd protoreflect.ServiceDescriptor, o *Options, d Dispatcher, hdr *headers, types *typeResolver) (*tool, error) {
	md := sd.Methods().ByName(ts.Method)
	switch {
	case md == nil:
		return nil, fmt.Errorf("protomcp: tool %q: service %s has no method %s", ts.Name, sd.FullName(), ts.Method)
	case md.IsStreamingClient() || md.IsStreamingServer():
		return nil, fmt.Errorf("protomcp: tool %q: method %s is streaming; only unary methods can be tools", ts.Name, md.FullName())
	}
	spec := *ts
	return &tool{spec: &spec, method: md, in: messageType(o.Types, md.Input()), out: messageType(o.Types, md.Output()),
		dec: newDecoder(md.Input(), types), d: d, hdr: hdr, marshal: marshalOptions(types)}, nil
}

// messageType returns the Go type registered for md when it is md's own,
// and otherwise a dynamic type built from md.
func messageType(types *protoregistry.Types, md protoreflect.MessageDescriptor) protoreflect.MessageType {
	if mt, err := types.FindMessageByName(md.FullName()); err == nil && mt.Descriptor() == md {
		return mt
	}
	return dynamicpb.NewMessageType(md)
}

func (t *tool) ferryTool() ferry.Tool {
	s := t.spec
	ft := ferry.Tool{Name: s.Name, Title: s.Title, Description: s.Description, ReadOnly: s.ReadOnly, Idempotent: s.Idempotent,
		Additive: s.Additive, ClosedWorld: s.ClosedWorld, Timeout: s.Timeout, Confirm: s.Confirm, Summarize: s.Summarize, TaskSupport: s.TaskSupport,
		RawInputSchema: s.InputSchema, RawOutputSchema: s.OutputSchema, Groups: slices.Clone(s.Groups)}
	if len(ft.RawInputSchema) == 0 {
		ft.RawInputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return ft
}

// marshalOptions are those of the responses: JSON names, defaults left
// out (so that an unset message field is absent rather than null, which an
// object schema refuses), and the Any types the service's files declare.
func marshalOptions(types *typeResolver) protojson.MarshalOptions {
	return protojson.MarshalOptions{UseProtoNames: false, EmitUnpopulated: false, Resolver: types}
}

// call serves one tools/call.
func (t *tool) call(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	in := t.in.New().Interface()
	if errs := t.dec.decode(req.Arguments, in); len(errs) > 0 {
		return ferry.NewInvalidArgumentsResult(t.alsoBroken(req.Arguments, errs)), nil
	}
	errs, err := violations(t.validator, in)
	if err != nil {
		return nil, fmt.Errorf("protomcp: validating the request of %s: %w", t.method.FullName(), err)
	}
	if len(errs) > 0 {
		return ferry.NewInvalidArgumentsResult(errs), nil
	}
	out, err := t.d.Invoke(ctx, t.method, in, t.hdr.build(ctx, t.spec.Name))
	if err != nil {
		if pastDeadline(ctx, err) {
			// Past the call's deadline: the server answers that the tool
			// timed out, naming its deadline, whatever the service said.
			return nil, fmt.Errorf("protomcp: %s: %w (%w)", t.method.FullName(), ctx.Err(), err)
		}
		return nil, toolError(err)
	}
	if out == nil || out.ProtoReflect().Descriptor().FullName() != t.method.Output().FullName() {
		return nil, fmt.Errorf("protomcp: %s: the dispatcher returned %T, not a %s", t.method.FullName(), out, t.method.Output().FullName())
	}
	data, err := t.marshal.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("protomcp: %s: marshalling the response: %w", t.method.FullName(), err)
	}
	text := stripSpace(data) // protojson's spacing varies on purpose; the text does not
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(text))}, StructuredContent: json.RawMessage(text)}, nil
}

// alsoBroken adds to the decoding errors errs the rules the rest of the
// arguments break, when the request can be read without its unknown
// fields, so that a call is refused once with every problem. A rule broken
// at a path already reported is left out.
func (t *tool) alsoBroken(args json.RawMessage, errs schema.Errors) schema.Errors {
	if len(errs) >= schema.MaxErrors {
		return errs // the list is full already
	}
	rest := t.in.New().Interface()
	if !t.dec.lenient(args, rest) {
		return errs
	}
	seen := make(map[string]bool, len(errs))
	for _, e := range errs {
		seen[e.Path] = true
	}
	all := errorList{errs: errs}
	if addViolations(&all, t.validator, rest, seen) != nil {
		return errs
	}
	return all.list()
}

// stripSpace removes the whitespace outside strings from data, a JSON
// document protojson wrote (so valid: it is not checked again), in place.
func stripSpace(data []byte) []byte {
	out := data[:0]
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		out = append(out, c)
	}
	return out
}

// deadlineSlack is how early a Connect handler may end a call at its
// deadline: the deadline travels as a whole number of milliseconds
// (Connect-Timeout-Ms, grpc-timeout), rounded down.
const deadlineSlack = 50 * time.Millisecond

// pastDeadline reports whether err ended the call because its deadline
// passed: ctx ended with its deadline, or the service answered
// deadline_exceeded within deadlineSlack of it (a handler that ran with
// the deadline the request carried, rounded down), in which case it waits
// for ctx to end, so that the server reads the call as timed out.
func pastDeadline(ctx context.Context, err error) bool {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true
	}
	d, ok := ctx.Deadline()
	if !ok || connect.CodeOf(err) != connect.CodeDeadlineExceeded || time.Until(d) > deadlineSlack {
		return false
	}
	<-ctx.Done()
	return errors.Is(ctx.Err(), context.DeadlineExceeded)
}
