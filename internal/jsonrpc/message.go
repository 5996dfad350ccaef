// Package jsonrpc holds the JSON-RPC 2.0 wire format used by MCP: decoding
// incoming messages, classifying them, and appending responses to a buffer
// without going through reflection for the envelope.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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

// SplitBatch splits a batch body into its elements. An empty batch is an error.
func SplitBatch(data []byte) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	if len(items) == 0 {
		return nil, errors.New("jsonrpc: empty batch")
	}
	return items, nil
}

// DecodeWith is [Decode] that also decodes the params member into params (a
// pointer to a struct) in the same pass, and leaves Message.Params nil.
// A params member whose fields have the wrong types is reported as perr,
// so that the caller can answer invalid params; err reports what Decode
// would (ErrParse, or an invalid message with Kind KindInvalid).
func DecodeWith(data []byte, params any) (m *Message, k Kind, err, perr error) {
	var e struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method,omitempty"`
		Params  any             `json:"params,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *WireError      `json:"error,omitempty"`
	}
	e.Params = params
	if uerr := json.Unmarshal(data, &e); uerr != nil {
		var te *json.UnmarshalTypeError
		switch {
		case !errors.As(uerr, &te):
			return nil, KindInvalid, fmt.Errorf("%w: %w", ErrParse, uerr), nil
		case strings.HasPrefix(te.Field, "params."):
			perr = uerr
		default:
			m = &Message{JSONRPC: e.JSONRPC, ID: e.ID, Method: e.Method}
			switch te.Field {
			case "":
				return m, KindInvalid, errors.New("jsonrpc: a message must be a JSON object"), nil
			case "params":
				return m, KindInvalid, errors.New("jsonrpc: params must be an object"), nil
			}
			return m, KindInvalid, fmt.Errorf("jsonrpc: member %q must not be a JSON %s", te.Field, te.Value), nil
		}
	}
	m = &Message{JSONRPC: e.JSONRPC, ID: e.ID, Method: e.Method, Result: e.Result, Error: e.Error}
	k, err = m.Classify()
	return m, k, err, perr
}
