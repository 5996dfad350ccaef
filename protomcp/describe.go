package protomcp

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/ferry-mcp/ferry/protomcp/internal/naming"
	"github.com/ferry-mcp/ferry/protomcp/internal/protoschema"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/ferry-mcp/ferry/toolname"
)

// DescribeOptions configures [Describe] and [DescribeAll]. The zero value
// is valid; every field documents its default.
type DescribeOptions struct {
	// Prefix is put before every default tool name ("weather_" makes
	// GetForecast's tool "weather_get_forecast"). A name set with
	// (ferry.v1.tool) is used as is. It must be made of the characters a
	// tool name allows. If empty, no prefix.
	Prefix string
}

// Describe computes the tools and prompts of service sd, as the generator
// protoc-gen-ferry writes them:
//
//   - one tool per unary method, in declaration order; streaming methods
//     and those with (ferry.v1.tool).skip are listed in
//     [ServiceSpec.Skipped] with the reason;
//   - the tool's name is the method name in snake_case ("GetHTTPStatus" is
//     "get_http_status") after [DescribeOptions.Prefix], or
//     (ferry.v1.tool).name; its title the method name in words or
//     (ferry.v1.tool).title; its description the method's leading comment
//     (descriptors without source info get a sentence naming the method);
//   - idempotency_level NO_SIDE_EFFECTS makes the tool read-only and
//     idempotent, IDEMPOTENT idempotent; (ferry.v1.tool) sets destructive
//     and open_world. A method that is not read-only is destructive unless
//     its option says destructive: false, so that a client never takes an
//     unmarked write for a harmless one;
//   - the input and output schemas are those of the request and response
//     messages in the protojson mapping;
//   - the prompts come from (ferry.v1.prompts) on the service and
//     (ferry.v1.method_prompts) on its methods.
//
// It reports every problem it finds at once, each naming the method or
// prompt: an invalid or repeated tool name, a prompt name repeated without
// regard to case, a prompt placeholder that names no argument, and so on.
// It only reads sd, so it may be called concurrently.
func Describe(sd protoreflect.ServiceDescriptor, opts *DescribeOptions) (*ServiceSpec, error) {
	spec, errs := describe(sd, opts)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return spec, nil
}

// describe returns what it can of sd's spec, with every problem found.
func describe(sd protoreflect.ServiceDescriptor, opts *DescribeOptions) (*ServiceSpec, []error) {
	var o DescribeOptions
	if opts != nil {
		o = *opts
	}
	if err := naming.CheckPrefix(o.Prefix); err != nil {
		return nil, []error{fmt.Errorf("protomcp: %w", err)}
	}
	spec := &ServiceSpec{Service: sd.FullName()}
	var errs []error
	names := map[string]protoreflect.FullName{}
	methods := sd.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		tool, skip, err := describeMethod(md, &o)
		switch {
		case err != nil:
			errs = append(errs, err)
		case skip != "":
			spec.Skipped = append(spec.Skipped, SkippedMethod{Method: md.Name(), Reason: skip})
		default:
			if other, ok := names[tool.Name]; ok {
				errs = append(errs, fmt.Errorf("protomcp: %s: tool name %q is also the name of %s's tool", md.FullName(), tool.Name, other))
				continue
			}
			names[tool.Name] = md.FullName()
			spec.Tools = append(spec.Tools, *tool)
		}
	}
	prompts, err := describePrompts(sd)
	if err != nil {
		errs = append(errs, err)
	}
	spec.Prompts = prompts
	return spec, errs
}

// DescribeAll describes several services that are to be served together,
// as [Describe] does each, and also reports a tool name that two of them
// share, or a prompt name they share without regard to case, naming both.
// The specs are in the order of services.
func DescribeAll(services []protoreflect.ServiceDescriptor, opts *DescribeOptions) ([]*ServiceSpec, error) {
	if opts != nil {
		if err := naming.CheckPrefix(opts.Prefix); err != nil {
			return nil, fmt.Errorf("protomcp: %w", err) // once, not once per service
		}
	}
	var errs []error
	specs := make([]*ServiceSpec, 0, len(services))
	tools := map[string]protoreflect.FullName{}
	prompts := map[string]string{}
	for _, sd := range services {
		spec, problems := describe(sd, opts)
		errs = append(errs, problems...)
		if spec == nil {
			continue
		}
		for _, t := range spec.Tools {
			origin := sd.FullName().Append(t.Method)
			if other, ok := tools[t.Name]; ok {
				errs = append(errs, fmt.Errorf("protomcp: %s: tool name %q is also the name of %s's tool", origin, t.Name, other))
				continue
			}
			tools[t.Name] = origin
		}
		for _, p := range spec.Prompts {
			key := strings.ToLower(p.Name)
			if other, ok := prompts[key]; ok {
				errs = append(errs, fmt.Errorf("protomcp: %s: prompt name %q repeats prompt %s without regard to case", sd.FullName(), p.Name, other))
				continue
			}
			prompts[key] = fmt.Sprintf("%q of %s", p.Name, sd.FullName())
		}
		specs = append(specs, spec)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return specs, nil
}

// describeMethod returns md's tool, or the reason it has none.
func describeMethod(md protoreflect.MethodDescriptor, o *DescribeOptions) (*ToolSpec, string, error) {
	switch {
	case md.IsStreamingClient() && md.IsStreamingServer():
		return nil, "bidirectional streaming: a tool call is one request answered by one result", nil
	case md.IsStreamingClient():
		return nil, "client streaming: a tool call carries one request, not a stream of them", nil
	case md.IsStreamingServer():
		return nil, "server streaming: a tool call is answered by one result, not a stream of them", nil
	}
	mo, err := methodOptions(md)
	if err != nil {
		return nil, "", err
	}
	opt := toolOption(mo)
	if opt.GetSkip() {
		return nil, "(ferry.v1.tool).skip is set", nil
	}
	fail := func(format string, args ...any) (*ToolSpec, string, error) {
		return nil, "", fmt.Errorf("protomcp: %s: "+format, append([]any{md.FullName()}, args...)...)
	}
	t := &ToolSpec{Method: md.Name(), Name: opt.GetName(), Title: opt.GetTitle()}
	if t.Name == "" {
		t.Name = o.Prefix + naming.Snake(string(md.Name()))
	}
	if err := toolname.Check(t.Name); err != nil {
		return fail("tool %q: %v", t.Name, err)
	}
	if t.Title == "" {
		t.Title = naming.Title(string(md.Name()))
	}
	t.Description = leadingComment(md)
	if t.Description == "" {
		t.Description = fmt.Sprintf("Calls the %s method of %s.", md.Name(), md.Parent().FullName())
	}
	if n := utf8.RuneCountInString(t.Description); n > schema.MaxDescription {
		return fail("its comment is %d characters; clients accept descriptions of at most %d", n, schema.MaxDescription)
	}
	switch mo.GetIdempotencyLevel() {
	case descriptorpb.MethodOptions_NO_SIDE_EFFECTS:
		t.ReadOnly, t.Idempotent = true, true
	case descriptorpb.MethodOptions_IDEMPOTENT:
		t.Idempotent = true
	}
	if opt != nil && opt.OpenWorld != nil {
		t.ClosedWorld = !opt.GetOpenWorld()
	}
	if opt != nil && opt.Destructive != nil {
		if opt.GetDestructive() && t.ReadOnly {
			return fail("(ferry.v1.tool).destructive is true on a NO_SIDE_EFFECTS method")
		}
		t.Additive = !opt.GetDestructive()
	}
	if t.InputSchema, err = protoschema.Input(md.Input()); err != nil {
		return fail("input schema of %s: %v", md.Input().FullName(), err)
	}
	if t.OutputSchema, err = protoschema.Output(md.Output()); err != nil {
		return fail("output schema of %s: %v", md.Output().FullName(), err)
	}
	return t, "", nil
}

// leadingComment returns d's leading comment from its file's source info,
// with the indentation its lines share, a javadoc-style opening "*" and
// the blank lines around it taken off; "" without source info.
func leadingComment(d protoreflect.Descriptor) string {
	file := d.ParentFile()
	if file == nil {
		return ""
	}
	text := file.SourceLocations().ByDescriptor(d).LeadingComments
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if strings.TrimSpace(lines[0]) == "*" { // the rest of "/**"
		lines = lines[1:]
	}
	indent := -1
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
		if lines[i] == "" {
			continue
		}
		if n := len(lines[i]) - len(strings.TrimLeft(lines[i], " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
