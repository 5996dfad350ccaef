package protomcp

import (
	"context"
	"encoding/json"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ferry-mcp/ferry"
)

// ServiceSpec describes the tools and prompts of one protobuf service. The
// generator writes one per service; [Describe] computes the same at run
// time from a descriptor.
type ServiceSpec struct {
	// Service is the service's full name, such as "weather.v1.WeatherService".
	Service protoreflect.FullName
	// Tools lists one tool per unary method, in declaration order.
	Tools []ToolSpec
	// Prompts lists the prompts declared with (ferry.v1.prompts) on the
	// service, then those declared with (ferry.v1.method_prompts) on its
	// methods, in declaration order.
	Prompts []PromptSpec
	// Skipped lists the methods that have no tool, with the reason. It is
	// for people reading the spec; [AddService] ignores it.
	Skipped []SkippedMethod
}

// SkippedMethod is a method of a service that has no tool: a streaming
// method, or one whose (ferry.v1.tool) option says skip.
type SkippedMethod struct {
	// Method is the method's name in the service.
	Method protoreflect.Name
	// Reason says why, such as "server streaming: ...".
	Reason string
}

// ToolSpec describes the tool of one unary method.
type ToolSpec struct {
	// Method is the method's name in the service, such as "GetForecast".
	Method protoreflect.Name
	// Groups are the tool's groups ([ferry.Tool.Groups]). If nil, the
	// service's group: its name in snake_case without a "Service" suffix
	// ("weather.v1.WeatherService" is "weather"); empty for none.
	Groups []string
	// Name is the tool's name, such as "get_forecast".
	Name string
	// Title is the option's title, or else the method's name in sentence
	// case ("Get forecast").
	Title string
	// Description is the method's leading comment, or else a sentence
	// naming the method.
	Description string
	// InputSchema and OutputSchema are the JSON Schemas of the request and
	// response messages in the protojson mapping.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Hints, as [ferry.Tool] has them: each false is the protocol's
	// cautious default. ReadOnly and Idempotent come from
	// idempotency_level; Additive is (ferry.v1.tool).destructive set to
	// false, ClosedWorld its open_world set to false.
	ReadOnly    bool
	Idempotent  bool
	Additive    bool
	ClosedWorld bool
	// Timeout is the tool's own deadline ([ferry.Tool.Timeout]) in place
	// of the server's CallTimeout: set it on the spec [Describe] returns
	// before [AddService]. The dispatcher's context carries it, so an
	// in-process Connect handler and a [Client]'s request both end with
	// it. If zero, the server's.
	Timeout time.Duration
	// Confirm ([ferry.Tool.Confirm]) and Summarize ([ferry.Tool.Summarize])
	// say whether a person confirms a call before it runs and what they
	// read: set them on the spec [Describe] returns before [AddService].
	// If zero, a server that confirms asks before a destructive method
	// (one whose (ferry.v1.tool).destructive is not false).
	Confirm   ferry.ConfirmPolicy
	Summarize func(ctx context.Context, req *ferry.CallToolRequest) (string, error)
	// TaskSupport says whether the tool may run as a task of the tasks
	// extension ([ferry.Tool.TaskSupport]): set it on the spec [Describe]
	// returns before [AddService]. If zero, it never does.
	TaskSupport ferry.TaskSupport
}

// PromptSpec describes one prompt declared with (ferry.v1.prompts).
type PromptSpec struct {
	// Name, Title and Description are those of the option.
	Name        string
	Title       string
	Description string
	// Template is the prompt's text with {{arg}} placeholders and
	// {{#arg}}...{{/arg}} sections, as ferry.Prompt.Template reads them.
	Template string
	// PreferWhen is an optional line saying when a model should prefer it.
	PreferWhen string
	// Arguments are the fields of the arguments message: each one's Name
	// as the .proto spells it, its Description the field's leading
	// comment, and Required set for a field marked
	// (google.api.field_behavior) = REQUIRED or
	// (buf.validate.field).required.
	Arguments []ferry.PromptArgument
}
