package jsonrpc

import (
	"encoding/json"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// AppendResultHead appends the start of a result response, up to and
// including `"result":`. The caller appends the result value and then '}'.
func AppendResultHead(b []byte, id json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, `,"result":`...)
}

// AppendError appends a complete error response. A nil or invalid id is
// written as null, as JSON-RPC prescribes for unreadable ids.
func AppendError(b []byte, id json.RawMessage, code int64, msg string, data json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil || checkID(id) != nil {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = jsontext.AppendString(b, msg)
	if len(data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, data...)
	}
	return append(b, "}}"...)
}

// AppendRequest appends a request (or, with a nil id, a notification) whose
// params are already encoded.
func AppendRequest(b []byte, id json.RawMessage, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = jsontext.AppendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}
