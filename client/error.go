package client

import (
	"encoding/json"
	"fmt"
)

// JSON-RPC and MCP error codes a client meets most often, for comparison
// with [RPCError.Code].
const (
	CodeParseError                 int64 = -32700
	CodeInvalidRequest             int64 = -32600
	CodeMethodNotFound             int64 = -32601
	CodeInvalidParams              int64 = -32602
	CodeInternalError              int64 = -32603
	CodeResourceNotFound           int64 = -32002 // legacy resources/read of an unknown URI
	CodeHeaderMismatch             int64 = -32020 // 2026-07-28: an Mcp-* header differs from the body
	CodeMissingClientCapability    int64 = -32021 // 2026-07-28: the request needs a client capability
	CodeUnsupportedProtocolVersion int64 = -32022 // 2026-07-28: the server does not speak the version
)

// RPCError is a JSON-RPC error the server answered a request with. Every
// other failure (the connection, HTTP, a reply that is not JSON-RPC) is an
// ordinary error, so errors.As(err, new(*RPCError)) tells a protocol
// answer from a transport failure.
type RPCError struct {
	// Code is the JSON-RPC error code, such as [CodeMethodNotFound].
	Code int64 `json:"code"`
	// Message is the server's sentence.
	Message string `json:"message"`
	// Data is the error's data as sent, empty when there is none.
	Data json.RawMessage `json:"data,omitempty"`

	// status is the HTTP status the error came with, 0 on stdio.
	status int
}

// Error implements error.
func (e *RPCError) Error() string {
	return fmt.Sprintf("client: server error %d: %s", e.Code, e.Message)
}

// HTTPStatus returns the HTTP status the error came with, or 0 when it did
// not come over HTTP.
func (e *RPCError) HTTPStatus() int { return e.status }

// StatusError is an HTTP answer that carries no JSON-RPC message: a
// refusal by the server or something in front of it (401, 403, 404, 502).
type StatusError struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Body is the start of the response body, at most 512 bytes.
	Body string
	// Header is the response's header (WWW-Authenticate tells why a 401).
	Header map[string][]string
}

// Error implements error.
func (e *StatusError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("client: HTTP status %d", e.StatusCode)
	}
	return fmt.Sprintf("client: HTTP status %d: %s", e.StatusCode, e.Body)
}
