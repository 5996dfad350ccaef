package protomcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
	"github.com/ferry-mcp/ferry/protomcp/internal/prototest"
)

const describeProto = `
syntax = "proto3";
package demo.v1;

import "ferry/v1/options.proto";
import "google/api/field_behavior.proto";

message Req {
  // Where to look.
  string city = 1 [(google.api.field_behavior) = REQUIRED];
  int32 days = 2;
}
message Resp { string text = 1; }

message TripArgs {
  // The destination city.
  string city = 1 [(google.api.field_behavior) = REQUIRED];
  // When to go, such as "next week".
  string when = 2;
}

service DemoService {
  option (ferry.v1.prompts) = {
    name: "plan_trip"
    title: "Plan a trip"
    description: "Plans a trip around the forecast."
    template: "Plan a trip to {{city}} {{ when }}."
    arguments: "demo.v1.TripArgs"
    prefer_when: "Use get_forecast for the weather."
  };

  // Returns the forecast
  // for a city.
  rpc GetForecast(Req) returns (Resp) {
    option idempotency_level = NO_SIDE_EFFECTS;
    option (ferry.v1.method_prompts) = {
      name: "Explain_Forecast"
      description: "Explains a forecast."
      template: "Explain the forecast for {{city}} over {{days}} days."
    };
  }
  rpc GetHTTPStatus(Req) returns (Resp) {
    option idempotency_level = IDEMPOTENT;
    option (ferry.v1.tool) = { destructive: false, open_world: true };
  }
  // Deletes everything.
  rpc PurgeAll(Req) returns (Resp) {
    option (ferry.v1.tool) = { name: "purge", title: "Purge all data" };
  }
  rpc Internal(Req) returns (Resp) { option (ferry.v1.tool).skip = true; }
  rpc Watch(Req) returns (stream Resp);
  rpc Upload(stream Req) returns (Resp);
  rpc Chat(stream Req) returns (stream Resp);
}
`

func service(t *testing.T, src, name string) protoreflect.ServiceDescriptor {
	t.Helper()
	files := prototest.Compile(t, map[string]string{"demo.proto": src}, "demo.proto")
	sd := files[0].Services().ByName(protoreflect.Name(name))
	if sd == nil {
		t.Fatalf("no service %s", name)
	}
	return sd
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	spec, err := protomcp.Describe(service(t, describeProto, "DemoService"), &protomcp.DescribeOptions{Prefix: "demo_"})
	if err != nil {
		t.Fatal(err)
	}
	want := &protomcp.ServiceSpec{
		Service: "demo.v1.DemoService",
		Tools: []protomcp.ToolSpec{
			{Method: "GetForecast", Name: "demo_get_forecast", Title: "Get forecast", Description: "Returns the forecast\nfor a city.", ReadOnly: true, Idempotent: true},
			{Method: "GetHTTPStatus", Name: "demo_get_http_status", Title: "Get HTTP status", Description: "Calls the GetHTTPStatus method of demo.v1.DemoService.", Idempotent: true, Additive: true},
			{Method: "PurgeAll", Name: "purge", Title: "Purge all data", Description: "Deletes everything."},
		},
		Prompts: []protomcp.PromptSpec{
			{
				Name: "plan_trip", Title: "Plan a trip", Description: "Plans a trip around the forecast.",
				Template: "Plan a trip to {{city}} {{ when }}.", PreferWhen: "Use get_forecast for the weather.",
				Arguments: []ferry.PromptArgument{
					{Name: "city", Description: "The destination city.", Required: true},
					{Name: "when", Description: `When to go, such as "next week".`},
				},
			},
			{
				Name: "Explain_Forecast", Description: "Explains a forecast.",
				Template: "Explain the forecast for {{city}} over {{days}} days.",
				Arguments: []ferry.PromptArgument{
					{Name: "city", Description: "Where to look.", Required: true},
					{Name: "days"},
				},
			},
		},
		Skipped: []protomcp.SkippedMethod{
			{Method: "Internal", Reason: "(ferry.v1.tool).skip is set"},
			{Method: "Watch", Reason: "server streaming: a tool call is answered by one result, not a stream of them"},
			{Method: "Upload", Reason: "client streaming: a tool call carries one request, not a stream of them"},
			{Method: "Chat", Reason: "bidirectional streaming: a tool call is one request answered by one result"},
		},
	}
	if diff := cmp.Diff(want, spec, cmpopts.IgnoreFields(protomcp.ToolSpec{}, "InputSchema", "OutputSchema")); diff != "" {
		t.Errorf("Describe (-want +got):\n%s", diff)
	}
	for _, tool := range spec.Tools {
		if len(tool.InputSchema) == 0 || len(tool.OutputSchema) == 0 {
			t.Errorf("%s: no schema", tool.Name)
		}
	}
}

func TestDescribeRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string // the service's body
		opts *protomcp.DescribeOptions
		want []string
	}{
		{
			name: "names that collide",
			body: `rpc GetHTTPStatus(Req) returns (Resp); rpc GetHttpStatus(Req) returns (Resp);`,
			want: []string{`demo.v1.S.GetHttpStatus: tool name "get_http_status" is also the name of demo.v1.S.GetHTTPStatus's tool`},
		},
		{
			name: "an option name colliding with a default one",
			body: `rpc Ping(Req) returns (Resp); rpc Pong(Req) returns (Resp) { option (ferry.v1.tool).name = "ping"; }`,
			want: []string{`demo.v1.S.Pong: tool name "ping" is also the name of demo.v1.S.Ping's tool`},
		},
		{
			name: "an invalid option name",
			body: `rpc Ping(Req) returns (Resp) { option (ferry.v1.tool).name = "ping pong"; }`,
			want: []string{`demo.v1.S.Ping: tool "ping pong": name has ' '; use only A-Z`},
		},
		{
			name: "a prefix that makes the name too long",
			body: `rpc Ping(Req) returns (Resp);`,
			opts: &protomcp.DescribeOptions{Prefix: strings.Repeat("p", 125)},
			want: []string{`is 129 characters; at most 128 are allowed`},
		},
		{
			name: "an invalid prefix",
			body: `rpc Ping(Req) returns (Resp);`,
			opts: &protomcp.DescribeOptions{Prefix: "a/b"},
			want: []string{`prefix "a/b": name has '/'`},
		},
		{
			name: "a comment too long for a description",
			body: "\n// " + strings.Repeat("Long. ", 180) + "\nrpc Ping(Req) returns (Resp);",
			want: []string{`demo.v1.S.Ping: its comment is 1079 characters; clients accept descriptions of at most 1024`},
		},
		{
			name: "destructive and read-only",
			body: `rpc Ping(Req) returns (Resp) { option idempotency_level = NO_SIDE_EFFECTS; option (ferry.v1.tool).destructive = true; }`,
			want: []string{`demo.v1.S.Ping: (ferry.v1.tool).destructive is true on a NO_SIDE_EFFECTS method`},
		},
		{
			name: "prompt names equal without regard to case",
			body: `option (ferry.v1.prompts) = { name: "Ask", description: "d", template: "t" };
			       rpc Ping(Req) returns (Resp) { option (ferry.v1.method_prompts) = { name: "ask", description: "d", template: "t" }; }`,
			want: []string{`demo.v1.S.Ping: prompt name "ask" repeats prompt "Ask" of demo.v1.S without regard to case`},
		},
		{
			name: "an unknown placeholder",
			body: `option (ferry.v1.prompts) = { name: "a", description: "d", template: "{{city}} {{town}}", arguments: "demo.v1.Req" };`,
			want: []string{`demo.v1.S: prompt "a": template placeholder {{town}} is not a field of demo.v1.Req`},
		},
		{
			name: "a section naming no field",
			body: `option (ferry.v1.prompts) = { name: "a", description: "d", template: "{{city}}{{#town}} near {{/town}}", arguments: "demo.v1.Req" };`,
			want: []string{`demo.v1.S: prompt "a": template section {{#town}} is not a field of demo.v1.Req`},
		},
		{
			name: "a placeholder without arguments",
			body: `option (ferry.v1.prompts) = { name: "a", description: "d", template: "{{city}}" };`,
			want: []string{`prompt "a": template placeholder {{city}} names no argument: the prompt has none`},
		},
		{
			name: "a prompt without description, template or valid name",
			body: `option (ferry.v1.prompts) = { name: "a b" };`,
			want: []string{`prompt "a b": name has ' '`, `prompt "a b": has no description`, `prompt "a b": has no template`},
		},
		{
			name: "an arguments message that does not exist",
			body: `option (ferry.v1.prompts) = { name: "a", description: "d", template: "t", arguments: "demo.v1.Nope" };`,
			want: []string{`prompt "a": arguments message demo.v1.Nope is not defined in demo.proto or the files it imports`},
		},
		{
			name: "a non-scalar argument",
			body: `rpc Ping(Nested) returns (Resp) { option (ferry.v1.method_prompts) = { name: "a", description: "d", template: "t" }; }`,
			want: []string{`argument inner of demo.v1.Nested is a message`, `argument tags of demo.v1.Nested is a repeated field`, `argument labels of demo.v1.Nested is a map`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := `syntax = "proto3"; package demo.v1; import "ferry/v1/options.proto";
			message Req { string city = 1; }
			message Resp {}
			message Nested { Req inner = 1; repeated string tags = 2; map<string, string> labels = 3; }
			service S { ` + tt.body + ` }`
			spec, err := protomcp.Describe(service(t, src, "S"), tt.opts)
			if err == nil {
				t.Fatalf("Describe = %+v, want an error", spec)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestDescribeAllCollisions(t *testing.T) {
	t.Parallel()
	src := `syntax = "proto3"; package demo.v1; import "ferry/v1/options.proto";
	message Req {} message Resp {}
	service A { option (ferry.v1.prompts) = { name: "Help", description: "d", template: "t" }; rpc GetThing(Req) returns (Resp); rpc Other(Req) returns (Resp); }
	service B { option (ferry.v1.prompts) = { name: "HELP", description: "d", template: "t" }; rpc GetThing(Req) returns (Resp); }`
	files := prototest.Compile(t, map[string]string{"demo.proto": src}, "demo.proto")
	a, b := files[0].Services().ByName("A"), files[0].Services().ByName("B")
	_, err := protomcp.DescribeAll([]protoreflect.ServiceDescriptor{a, b}, nil)
	if err == nil {
		t.Fatal("DescribeAll: no error")
	}
	for _, w := range []string{
		`demo.v1.B.GetThing: tool name "get_thing" is also the name of demo.v1.A.GetThing's tool`,
		`demo.v1.B: prompt name "HELP" repeats prompt "Help" of demo.v1.A without regard to case`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q\ndoes not contain %q", err, w)
		}
	}
	specs, err := protomcp.DescribeAll([]protoreflect.ServiceDescriptor{a}, nil)
	if err != nil || len(specs) != 1 || len(specs[0].Tools) != 2 {
		t.Fatalf("DescribeAll(A) = %v, %v", specs, err)
	}
}

// TestDescribeWithoutSourceInfo describes a service decoded from a
// descriptor set without source info, whose options were read with no
// Ferry extension known (so they are unknown fields), as a FileDescriptorSet
// file or gRPC reflection gives them: the options still apply, and the
// descriptions name the method.
func TestDescribeWithoutSourceInfo(t *testing.T) {
	t.Parallel()
	files := prototest.Compile(t, map[string]string{"demo.proto": describeProto}, "demo.proto")
	set := protoset.WithoutSourceInfo(protoset.Of(files[0]))
	b, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	decoded := &descriptorpb.FileDescriptorSet{}
	if err := (proto.UnmarshalOptions{Resolver: new(protoregistry.Types)}).Unmarshal(b, decoded); err != nil {
		t.Fatal(err)
	}
	reg, err := protodesc.NewFiles(decoded)
	if err != nil {
		t.Fatal(err)
	}
	d, err := reg.FindDescriptorByName("demo.v1.DemoService")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := protomcp.Describe(d.(protoreflect.ServiceDescriptor), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range spec.Tools {
		got = append(got, fmt.Sprintf("%s %q readOnly=%v destructive=%v: %s", tool.Name, tool.Title, tool.ReadOnly, !tool.ReadOnly && !tool.Additive, tool.Description))
	}
	want := []string{
		`get_forecast "Get forecast" readOnly=true destructive=false: Calls the GetForecast method of demo.v1.DemoService.`,
		`get_http_status "Get HTTP status" readOnly=false destructive=false: Calls the GetHTTPStatus method of demo.v1.DemoService.`,
		`purge "Purge all data" readOnly=false destructive=true: Calls the PurgeAll method of demo.v1.DemoService.`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(spec.Prompts) != 2 || spec.Prompts[0].Arguments[0].Description != "" || !spec.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts %+v: want both, required from field behaviour, no descriptions", spec.Prompts)
	}
	if len(spec.Skipped) != 4 {
		t.Errorf("skipped %+v", spec.Skipped)
	}
}

func TestDescribeAllBadPrefixOnce(t *testing.T) {
	t.Parallel()
	src := `syntax = "proto3"; package demo.v1; message M {}
	service A { rpc Ping(M) returns (M); } service B { rpc Pong(M) returns (M); }`
	files := prototest.Compile(t, map[string]string{"demo.proto": src}, "demo.proto")
	_, err := protomcp.DescribeAll([]protoreflect.ServiceDescriptor{files[0].Services().Get(0), files[0].Services().Get(1)}, &protomcp.DescribeOptions{Prefix: "a b"})
	if err == nil || strings.Count(err.Error(), `prefix "a b"`) != 1 {
		t.Errorf("DescribeAll with a bad prefix: %v, want the prefix named once", err)
	}
}

// compiled compiles a schema tools/list sent.
func compiled(t *testing.T, v any) *jsonschema.Schema {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sc, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("the schema %s does not compile: %v", data, err)
	}
	return sc
}

func instance(t *testing.T, raw string) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemasAndCallsAgree checks the published schemas against what the
// tools do: arguments a call accepts fit the input schema, its response
// fits the output schema, and arguments the call refuses (where the schema
// has a keyword for the rule) do not fit the input schema.
func TestSchemasAndCallsAgree(t *testing.T) {
	m := newShopServer(t, nil)
	tools := m.listed(t)
	for _, c := range []struct {
		tool, args string
		ok         bool
	}{
		{"get_item", `{"sku":"BOOK-1"}`, true},
		{"get_item", `{"sku":"b"}`, false},
		{"get_item", `{"sku":"abc"}`, false},
		{"get_item", `{"sku":"BOOK-1","extra":1}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":2}],"labels":{"cost_center":"c"},"invoiceRef":"i","deliverAfter":"2026-12-01T10:00:00Z","kind":"KIND_TOOL"}`, true},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":0}]}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[]}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"cardToken":"t","invoiceRef":"i"}`, false},
		{"place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"kind":"KIND_FOOD"}`, false},
		{"fail", `{"code":"not_found"}`, true},
	} {
		tool := tools[c.tool]
		in := compiled(t, tool["inputSchema"])
		fits := in.Validate(instance(t, c.args)) == nil
		if fits != c.ok {
			t.Errorf("%s %s: fits the input schema: %v, want %v", c.tool, c.args, fits, c.ok)
		}
		r := m.call(t, c.tool, c.args)
		if c.tool == "fail" {
			continue // it refuses by design
		}
		if r.IsError == c.ok {
			t.Errorf("%s %s: the call's IsError is %v: %s", c.tool, c.args, r.IsError, r.Text)
			continue
		}
		if c.ok {
			out := compiled(t, tool["outputSchema"])
			if err := out.Validate(instance(t, string(r.Structured))); err != nil {
				t.Errorf("%s: the response %s does not fit the output schema: %v", c.tool, r.Structured, err)
			}
		}
	}
}
