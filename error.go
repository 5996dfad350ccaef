package ferry

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Code is a JSON-RPC error code.
type Code int64

// JSON-RPC and MCP error codes that Ferry produces or recognises.
const (
	CodeParseError                 Code = jsonrpc.CodeParseError
	CodeInvalidRequest             Code = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound             Code = jsonrpc.CodeMethodNotFound
	CodeInvalidParams              Code = jsonrpc.CodeInvalidParams
	CodeInternalError              Code = jsonrpc.CodeInternalError
	CodeResourceNotFound           Code = -32002 // legacy resources/read of an unknown URI
	CodeHeaderMismatch             Code = -32020 // 2026-07-28: Mcp-Method / Mcp-Name differ from the body
	CodeMissingClientCapability    Code = -32021 // 2026-07-28: the request needs a client capability it did not declare
	CodeUnsupportedProtocolVersion Code = -32022 // 2026-07-28: version not supported
	CodeURLElicitationRequired     Code = -32042
)

// String returns the code's name, or its number when it has none.
func (c Code) String() string {
	switch c {
	case CodeParseError:
		return "parse error"
	case CodeInvalidRequest:
		return "invalid request"
	case CodeMethodNotFound:
		return "method not found"
	case CodeInvalidParams:
		return "invalid params"
	case CodeInternalError:
		return "internal error"
	case CodeResourceNotFound:
		return "resource not found"
	case CodeHeaderMismatch:
		return "header mismatch"
	case CodeMissingClientCapability:
		return "missing required client capability"
	case CodeUnsupportedProtocolVersion:
		return "unsupported protocol version"
	case CodeURLElicitationRequired:
		return "URL elicitation required"
	}
	return fmt.Sprintf("code %d", int64(c))
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

// ErrSessionNotFound reports a session id that is unknown, expired or forged.
var ErrSessionNotFound = errors.New("ferry: session not found")

// ErrNoClientStream reports a server-to-client message that has no way to
// reach the client: the request was answered as plain JSON, the session is
// stateless, or the client did not declare the capability.
var ErrNoClientStream = errors.New("ferry: no stream to the client for this request")

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

func batchRefusal(version string) string {
	if version == "" {
		return "batches need a session initialized with protocol version 2025-03-26"
	}
	return "batches are not allowed in protocol version " + version
}

// decodeError is the response to a message that did not decode: a
// refusal of the whole message (an [*Error], answered with no id, see
// [Server.decodeMessage]), or an invalid request, echoing its id when it
// can be read.
func decodeError(m *jsonrpc.Message, err error) []byte {
	if e, ok := errors.AsType[*Error](err); ok {
		return appendErrorResponse(nil, nil, e)
	}
	var id json.RawMessage
	if m.ValidID() {
		id = m.ID
	}
	return jsonrpc.AppendError(nil, id, int64(CodeInvalidRequest), "invalid request: "+err.Error(), nil)
}
