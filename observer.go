package ferry

import (
	"context"
	"encoding/json"
	"time"
)

// Observer is told of every request the server answers, on every
// transport, for tracing and metrics (the otelferry module makes
// OpenTelemetry spans and the MCP duration histogram of it). Start is
// called once the request is known to the server (its era, version and
// session settled, before its handler runs), and the context it returns
// is the parent of the handler's: a span started there is the handler's
// parent. End is called with that context once the answer is ready (when
// it is about to be written). Both run on the request's goroutine, for
// requests of every client concurrently, so they must be fast and safe
// for concurrent use.
//
// The info is the server's and is valid only until End returns: copy what
// must outlive it. Requests refused before they reach the server (an HTTP
// request whose headers disagree with its body, a body over the size
// limit, a request during a shutdown, one reusing the id of a request in
// flight) and notifications are not observed.
//
// A panic in Start or End is contained: it is logged, the request is
// answered as if no Observer were set (after a panic in Start, End is not
// called), and the process goes on. A Start or End that blocks holds its
// request's answer for as long.
//
// While no Observer is set, the server does no work for one.
type Observer interface {
	Start(ctx context.Context, info *RequestInfo) context.Context
	End(ctx context.Context, info *RequestInfo, end RequestEnd)
}

// The transports a [RequestInfo] names.
const (
	TransportHTTP  = "http"  // Streamable HTTP ([HTTPHandler])
	TransportStdio = "stdio" // a stream of lines ([Server.Run]: stdio, an [IOTransport])
)

// Target is the kind of entry a request names, as its method's row in the
// server's method table says.
type Target uint8

// The kinds of [RequestInfo.Target].
const (
	TargetNone     Target = iota // the method names no entry
	TargetTool                   // tools/call: [RequestInfo.Name] is a tool
	TargetPrompt                 // prompts/get: Name is a prompt
	TargetResource               // resources/read, subscribe, unsubscribe: Name is a URI
)

// RequestInfo is what the server knows of a request as it starts.
type RequestInfo struct {
	// Method is the JSON-RPC method: "tools/call", "initialize".
	Method string
	// Name is the request's target: the tool of a tools/call, the prompt
	// of a prompts/get, the URI of a resources/read, resources/subscribe
	// or resources/unsubscribe; empty otherwise.
	Name string
	// Target says what Name is: a tool, a prompt, a resource's URI, or
	// nothing. An observer reads it rather than a list of method names.
	Target Target
	// ID is the request's JSON-RPC id as text: a string id's value, a
	// number's digits.
	ID string
	// ProtocolVersion is the MCP version the request is served in.
	ProtocolVersion string
	// Modern is true for a 2026-07-28 (stateless) request, false for a
	// request of a legacy (2025) session.
	Modern bool
	// SessionID is the legacy HTTP session's id (Mcp-Session-Id); empty
	// for modern requests and on stdio.
	SessionID string
	// Transport is [TransportHTTP] or [TransportStdio].
	Transport string
	// Trace is the W3C trace context and baggage the client sent in the
	// request's params._meta; its fields are empty when absent.
	Trace TraceContext
	// Unknown says the server serves no method named Method, or has no
	// tool or prompt named Name, as the request starts: Method or Name is
	// then text the client chose, of any length and variety. Leave it out
	// of span names and metric attributes, which must stay few (otelferry
	// names such requests "_OTHER" and records no target).
	Unknown bool
	// Client is the name a 2026-07-28 client gives itself in each
	// request's _meta (io.modelcontextprotocol/clientInfo), cut to 128
	// bytes: text the client chose, which it may make up. It is empty
	// when the request names none, and for a legacy request, whose
	// client named itself only at initialize.
	Client string
	// Arguments are a tools/call's or prompts/get's arguments as the
	// client sent them (raw JSON, possibly nil). They may hold what the
	// user typed: record them only with the user's consent.
	Arguments json.RawMessage
}

// TraceContext is the W3C trace context and baggage of a request: the
// values of the keys traceparent, tracestate and baggage of its
// params._meta, which the 2026-07-28 spec reserves for them (as the
// OpenTelemetry conventions for MCP propagate them).
type TraceContext struct {
	TraceParent string `json:"traceparent,omitempty"`
	TraceState  string `json:"tracestate,omitempty"`
	Baggage     string `json:"baggage,omitempty"`
}

// RequestEnd is how a request ended.
type RequestEnd struct {
	// Duration is the time from Start to the answer.
	Duration time.Duration
	// ErrorCode is the JSON-RPC error code of an error answer; zero for
	// a result.
	ErrorCode Code
	// ErrorMessage is the error answer's message.
	ErrorMessage string
	// ToolError says a tools/call's result has isError set: the tool
	// failed (or refused) and the model reads why.
	ToolError bool
	// Task is the status a task-augmented tools/call's task ended in
	// (completed, failed or cancelled): such a call is observed as the
	// call it is, from its request until its task ends, with the task's
	// result or error; empty for any other request.
	Task TaskStatus
	// Result is the answer's result member (raw JSON; nil for an error
	// answer). It is valid only until End returns, and holds what the
	// tool or resource returned: record it only with consent.
	Result json.RawMessage
}

// idText is a JSON-RPC id as text: a string's value, a number's digits.
func idText(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		var v string
		if json.Unmarshal(id, &v) == nil {
			return v
		}
	}
	return string(id)
}
