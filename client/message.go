package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
)

// message is one JSON-RPC message, in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// isRequest reports whether m is a request (a method and an id).
func (m *message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// isResponse reports whether m is a response (no method).
func (m *message) isResponse() bool { return m.Method == "" }

// hasNoID reports whether m has no id, or a null one.
func (m *message) hasNoID() bool { return len(m.ID) == 0 || string(m.ID) == "null" }

// isNotification reports whether m is a notification (a method, no id).
func (m *message) isNotification() bool { return m.Method != "" && !m.isRequest() }

// errNotJSONRPC reports a message that is not JSON-RPC 2.0.
var errNotJSONRPC = errors.New("not a JSON-RPC 2.0 message")

// errNotUTF8 reports a message that is not valid UTF-8.
var errNotUTF8 = errors.New("not valid UTF-8 (JSON text must be)")

// decodeMessage decodes and checks one message.
func decodeMessage(data []byte) (*message, error) {
	if !utf8.Valid(data) {
		return nil, errNotUTF8 // JSON is UTF-8; the raw text would pass it on
	}
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

// encodeRequest returns a request's JSON. params must be compact JSON
// (as json.Marshal and encodeObject write it).
func encodeRequest(id int64, method string, params json.RawMessage) []byte {
	b := make([]byte, 0, len(params)+len(method)+48)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// encodeObject returns the JSON object of members, sorted by name as
// json.Marshal sorts a map. Each value must be compact JSON: the values
// come from json.Marshal or json.Unmarshal of such output, so writing them
// as they are saves validating and compacting every request again.
func encodeObject(members map[string]json.RawMessage) json.RawMessage {
	keys := make([]string, 0, len(members))
	n := 2
	for k, v := range members {
		keys = append(keys, k)
		n += len(k) + len(v) + 4
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		if v := members[k]; len(v) > 0 {
			b = append(b, v...)
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}

// jsonString returns s as a JSON string.
func jsonString(s string) json.RawMessage { return appendJSONString(nil, s) }

// appendJSONString appends s as a JSON string, escaped as json.Marshal
// escapes it.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// asksForInput reports whether a modern result is input_required, and
// fails when it is not a JSON object. Most results are not, and are told
// without decoding them: the value "input_required" can only be written as
// it is or with \u escapes, so a result holding neither is not one.
func asksForInput(res json.RawMessage) (bool, error) {
	trimmed := bytes.TrimLeft(res, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false, errors.New("it is not a JSON object")
	}
	if !bytes.Contains(res, []byte("input_required")) && !bytes.Contains(res, []byte(`\u`)) {
		return false, nil
	}
	var members map[string]json.RawMessage // names match exactly, unlike a struct's fields
	if err := json.Unmarshal(res, &members); err != nil {
		return false, err
	}
	var rt string
	_ = json.Unmarshal(members["resultType"], &rt)
	return rt == "input_required", nil
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
		var re *Error
		if !errors.As(err, &re) {
			re = &Error{Code: ferry.CodeInternalError, Message: err.Error()}
		}
		m.Result, m.Error = nil, re
	}
	b, _ := json.Marshal(&m)
	return b
}
