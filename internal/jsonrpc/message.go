// Package jsonrpc holds the JSON-RPC 2.0 wire format used by MCP: decoding
// incoming messages in one pass without reflection ([Decoder]),
// classifying them, and appending responses to a buffer.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Kind tells what a decoded message is.
type Kind uint8

// The kinds of message.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

// Message is one decoded JSON-RPC message. Its raw fields alias the buffer it
// was decoded from.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *WireError      `json:"error,omitempty"`
}

// WireError is the error member of a response.
type WireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ErrParse reports a body that is not JSON.
var ErrParse = errors.New("jsonrpc: parse error")

// Classify checks the message's members and tells its kind.
func (m *Message) Classify() (Kind, error) {
	if m.JSONRPC != "2.0" {
		return KindInvalid, errors.New(`jsonrpc: the "jsonrpc" member must be "2.0"`)
	}
	if len(m.Params) > 0 && m.Params[0] != '{' && !isNull(m.Params) {
		return KindInvalid, errors.New("jsonrpc: params must be an object")
	}
	if m.Method != "" {
		if m.Result != nil || m.Error != nil {
			return KindInvalid, errors.New("jsonrpc: a request cannot carry a result or an error")
		}
		if m.ID == nil {
			return KindNotification, nil
		}
		if err := checkID(m.ID); err != nil {
			return KindInvalid, err
		}
		return KindRequest, nil
	}
	if (m.Result != nil) == (m.Error != nil) {
		return KindInvalid, errors.New(`jsonrpc: a message needs a "method", or exactly one of "result" and "error"`)
	}
	if m.ID == nil {
		return KindInvalid, errors.New("jsonrpc: a response needs an id")
	}
	return KindResponse, nil
}

// ValidID reports whether the message's id can be echoed in an error
// response (a string or a number).
func (m *Message) ValidID() bool { return m != nil && m.ID != nil && checkID(m.ID) == nil }

func checkID(id json.RawMessage) error {
	if len(id) == 0 {
		return errors.New("jsonrpc: empty id")
	}
	switch c := id[0]; {
	case c == '"':
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(id, ".eE") {
			return errors.New("jsonrpc: id must be a string or an integer")
		}
		return nil
	default:
		return errors.New("jsonrpc: id must be a string or an integer, not null")
	}
}

func isNull(b json.RawMessage) bool { return string(b) == "null" }

// IsBatch reports whether a body holds a JSON array (a batch), looking only at
// its first non-space byte.
func IsBatch(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return true
		default:
			return false
		}
	}
	return false
}
