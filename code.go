package ferry

// This file holds every code Ferry answers with: the protocol's error
// codes and [Error], the refusal codes a tool's result starts with, and
// the exported sentinel errors callers branch on.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Code is a JSON-RPC error code.
type Code int64

// JSON-RPC and MCP error codes that Ferry produces or recognises.
const (
	CodeParseError     Code = jsonrpc.CodeParseError     // the message is not JSON, or nests too deeply
	CodeInvalidRequest Code = jsonrpc.CodeInvalidRequest // the message is not a valid JSON-RPC request
	CodeMethodNotFound Code = jsonrpc.CodeMethodNotFound // no such method, in the request's era
	CodeInvalidParams  Code = jsonrpc.CodeInvalidParams  // the params do not fit the method (an unknown tool too)
	CodeInternalError  Code = jsonrpc.CodeInternalError  // a failure masked behind a reference to the log
	// CodeResourceNotFound answers a legacy resources/read of a URI that
	// names nothing the caller may read.
	CodeResourceNotFound Code = -32002
	// CodeInsufficientScope is the code of the body of an HTTP 403 answer
	// to a call of a tool whose scopes the caller lacks (see
	// [ServerOptions.StepUp]). Clients react to the status and its
	// WWW-Authenticate challenge, not to the code; it is in the range
	// JSON-RPC leaves to implementations.
	CodeInsufficientScope Code = -32003
	// CodeHeaderMismatch (2026-07-28) answers a request whose routing
	// headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*)
	// differ from its body.
	CodeHeaderMismatch Code = -32020
	// CodeMissingClientCapability (2026-07-28) answers a request that
	// needs a client capability it did not declare; its data names them in
	// requiredCapabilities.
	CodeMissingClientCapability Code = -32021
	// CodeUnsupportedProtocolVersion (2026-07-28) answers a version the
	// server does not speak; its data lists those it does.
	CodeUnsupportedProtocolVersion Code = -32022
	// CodeURLElicitationRequired (2025-11-25) is a client's answer that it
	// needs a URL-mode elicitation first.
	CodeURLElicitationRequired Code = -32042
)

// codeNames are the codes' names, as String writes them.
var codeNames = map[Code]string{
	CodeParseError:                 "parse error",
	CodeInvalidRequest:             "invalid request",
	CodeMethodNotFound:             "method not found",
	CodeInvalidParams:              "invalid params",
	CodeInternalError:              "internal error",
	CodeResourceNotFound:           "resource not found",
	CodeInsufficientScope:          "insufficient scope",
	CodeHeaderMismatch:             "header mismatch",
	CodeMissingClientCapability:    "missing required client capability",
	CodeUnsupportedProtocolVersion: "unsupported protocol version",
	CodeURLElicitationRequired:     "URL elicitation required",
}

// String returns the code's name, or "code N" for a code Ferry does not
// name.
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return "code " + strconv.FormatInt(int64(c), 10)
}

// Error is a protocol error: a JSON-RPC error object sent instead of a result.
// Handlers of protocol methods return it (or wrap it) to choose the code the
// client sees; any other error becomes -32603 with a masked message.
// Tool failures are not protocol errors: see [ToolResult].
type Error struct {
	Code    Code
	Message string
	// Data, if not nil, is marshalled into the error's data member.
	Data any
}

// NewError returns an [*Error] with the code and a formatted message.
func NewError(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("ferry: %s (%d)", e.Message, int64(e.Code)) }

// CodeOf returns the code of the first [*Error] in err's chain, or
// [CodeInternalError] when there is none. A nil error has code 0.
func CodeOf(err error) Code {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternalError
}

// appendErrorResponse appends the JSON-RPC error response for err.
func appendErrorResponse(b []byte, id json.RawMessage, err error) []byte {
	var e *Error
	if !errors.As(err, &e) {
		return jsonrpc.AppendError(b, id, int64(CodeInternalError), "internal error", nil)
	}
	var data json.RawMessage
	if e.Data != nil {
		data, _ = json.Marshal(e.Data)
	}
	return jsonrpc.AppendError(b, id, int64(e.Code), e.Message, data)
}

// RefusalCode is the stable code a refusal starts with: what kind of "no"
// the model got (see [Refusal]).
type RefusalCode string

// The refusal codes Ferry names. Any other code may be used with [Refuse].
const (
	RefusalNotFound    RefusalCode = "not-found"   // what the call names does not exist
	RefusalConflict    RefusalCode = "conflict"    // the call clashes with the current state
	RefusalForbidden   RefusalCode = "forbidden"   // the caller may not do this
	RefusalInvalid     RefusalCode = "invalid"     // well-formed arguments that make no sense together
	RefusalUnavailable RefusalCode = "unavailable" // something needed is down or busy: try later
	RefusalDeclined    RefusalCode = "declined"    // the person asked to confirm the call did not (see [ServerOptions.Confirm])
)

// The sentinel errors callers branch on, with [errors.Is].
var (
	// ErrSessionNotFound reports a session id that is unknown, expired or
	// forged.
	ErrSessionNotFound = errors.New("ferry: session not found")
	// ErrTooManySessions is returned by [SessionStore.Create] when the
	// store holds as many sessions as it may.
	ErrTooManySessions = errors.New("ferry: too many open sessions")
	// ErrNoClientStream reports a server-to-client message that has no way
	// to reach the client: the request was answered as plain JSON, the
	// session is stateless, or the client did not declare the capability.
	ErrNoClientStream = errors.New("ferry: no stream to the client for this request")
	// ErrInputRequired is returned by [Elicit], [CreateMessage] and
	// [ListRoots] in the modern era when the answer must come from a
	// retry of the request. The handler should return; Ferry answers
	// input_required.
	ErrInputRequired = errors.New("ferry: input required from the client")
	// ErrResourceNotFound reports a URI that names no resource.
	ErrResourceNotFound = errors.New("ferry: resource not found")
	// ErrConnectionClosed is returned by writes on a closed connection.
	ErrConnectionClosed = errors.New("ferry: connection closed")
	// ErrMessageTooLarge is returned by a connection's Read for a message
	// over its size limit; the message is skipped and the connection
	// stays usable.
	ErrMessageTooLarge = errors.New("ferry: message too large")
	// ErrServerClosed is returned by [Server.Run] when [Server.Shutdown]
	// was called before it started.
	ErrServerClosed = errors.New("ferry: server shut down")
)
