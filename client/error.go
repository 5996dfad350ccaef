package client

import (
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// Error is a JSON-RPC error: the one a server answered a request with, or
// the one the client answers a server's question with when a function of
// [Options] returns it. Its Code is the server package's [ferry.Code], so
// that a program with both compares it with the constants its server
// answers with (ferry.CodeMethodNotFound...). Every other failure (the
// connection, HTTP, a reply that is not JSON-RPC) is an ordinary error,
// so errors.As(err, new(*Error)) tells a protocol answer from a transport
// failure.
type Error struct {
	// Code is the JSON-RPC error code, such as ferry.CodeMethodNotFound.
	Code ferry.Code `json:"code"`
	// Message is the error's sentence.
	Message string `json:"message"`
	// Data is the error's data as sent, empty when there is none.
	Data json.RawMessage `json:"data,omitempty"`

	// status is the HTTP status the error came with, 0 on stdio.
	status int
}

// NewError returns an [*Error] with the code and a formatted message, as
// [ferry.NewError] does for a server.
func NewError(code ferry.Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("client: server error %d: %s", int64(e.Code), e.Message)
}

// HTTPStatus returns the HTTP status the error came with, or 0 when it did
// not come over HTTP.
func (e *Error) HTTPStatus() int { return e.status }

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
