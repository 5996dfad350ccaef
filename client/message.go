package client

import (
	"encoding/json"
	"errors"
	"strconv"
)

// message is one JSON-RPC message, in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// isRequest reports whether m is a request (a method and an id).
func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// isNotification reports whether m is a notification (a method, no id).
func (m *message) isNotification() bool { return m.Method != "" && !m.isRequest() }

// errNotJSONRPC reports a message that is not JSON-RPC 2.0.
var errNotJSONRPC = errors.New("not a JSON-RPC 2.0 message")

// decodeMessage decodes and checks one message.
func decodeMessage(data []byte) (*message, error) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, errNotJSONRPC
	}
	if m.JSONRPC != "2.0" {
		return nil, errNotJSONRPC
	}
	if m.Method == "" && m.Error == nil && m.Result == nil {
		return nil, errNotJSONRPC
	}
	return &m, nil
}

// idJSON is the JSON of a request id the client chose.
func idJSON(id int64) json.RawMessage { return strconv.AppendInt(nil, id, 10) }

// encodeRequest returns a request's JSON.
func encodeRequest(id int64, method string, params json.RawMessage) []byte {
	m := message{JSONRPC: "2.0", ID: idJSON(id), Method: method, Params: params}
	b, _ := json.Marshal(&m) // every member is already JSON
	return b
}

// encodeNotification returns a notification's JSON.
func encodeNotification(method string, params json.RawMessage) []byte {
	b, _ := json.Marshal(&message{JSONRPC: "2.0", Method: method, Params: params})
	return b
}

// encodeResponse returns the JSON of the client's answer to a server
// request: its result, or err as a JSON-RPC error.
func encodeResponse(id json.RawMessage, result any, err error) []byte {
	m := message{JSONRPC: "2.0", ID: id}
	if err == nil {
		res, merr := json.Marshal(result)
		if merr != nil {
			err = merr
		} else {
			m.Result = res
		}
	}
	if err != nil {
		var re *RPCError
		if !errors.As(err, &re) {
			re = &RPCError{Code: CodeInternalError, Message: err.Error()}
		}
		m.Result, m.Error = nil, re
	}
	b, _ := json.Marshal(&m)
	return b
}
