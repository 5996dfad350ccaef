package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/jsonrpc"
	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// message is one message from the server, in the envelope the server
// package reads and writes (internal/jsonrpc's), with what the client
// reads of it: its kind and its error member.
type message struct {
	*jsonrpc.Message
	kind jsonrpc.Kind
	err  *Error // the error member, nil when there is none
}

// isRequest reports whether m is a request (a method and an id).
func (m *message) isRequest() bool { return m.kind == jsonrpc.KindRequest }

// isResponse reports whether m is a response (a result or an error).
func (m *message) isResponse() bool { return m.kind == jsonrpc.KindResponse }

// isNotification reports whether m is a notification (a method, no id).
func (m *message) isNotification() bool { return m.kind == jsonrpc.KindNotification }

// hasNoID reports whether m's id is null, as it is in the answer to a
// request the server could not read.
func (m *message) hasNoID() bool { return len(m.ID) == 0 || string(m.ID) == "null" }

// errNotJSONRPC reports a message that is not JSON-RPC 2.0.
var errNotJSONRPC = errors.New("not a JSON-RPC 2.0 message")

// errNotUTF8 reports a message that is not valid UTF-8.
var errNotUTF8 = errors.New("not valid UTF-8 (JSON text must be)")

// decodeMessage decodes and checks one message by the rules the server
// holds its clients to (internal/jsonrpc), with no bound on its nesting
// but JSON's own: data is bounded by Limits.MaxResponseBytes, and a
// tool's structured content may nest deeply. The message aliases data,
// which must not be reused.
func decodeMessage(data []byte) (*message, error) {
	if !utf8.Valid(data) {
		return nil, errNotUTF8 // JSON is UTF-8; the raw text would pass it on
	}
	jm, kind, err := jsonrpc.Decode(data)
	if err != nil {
		return nil, errNotJSONRPC
	}
	m := &message{Message: jm, kind: kind}
	if w := jm.Error; w != nil {
		m.err = &Error{Code: ferry.Code(w.Code), Message: w.Message, Data: w.Data}
	}
	return m, nil
}

// idJSON is the JSON of a request id the client chose.
func idJSON(id int64) json.RawMessage { return strconv.AppendInt(nil, id, 10) }

// encodeRequest returns a request's JSON. params must be compact JSON
// (as json.Marshal and encodeObject write it).
func encodeRequest(id int64, method string, params json.RawMessage) []byte {
	b := make([]byte, 0, len(params)+len(method)+48)
	return jsonrpc.AppendRequest(b, idJSON(id), method, params)
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
		b = jsontext.AppendString(b, k)
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
func jsonString(s string) json.RawMessage { return jsontext.AppendString(nil, s) }

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
	return jsonrpc.AppendRequest(nil, nil, method, params)
}

// encodeResponse returns the JSON of the client's answer to a server
// request: its result, or err as a JSON-RPC error (an [*Error] keeps its
// code and data; any other error is an internal error).
func encodeResponse(id json.RawMessage, result any, err error) []byte {
	if err == nil {
		res, merr := json.Marshal(result)
		if merr == nil {
			b := jsonrpc.AppendResultHead(nil, id)
			b = append(b, res...)
			return append(b, '}')
		}
		err = merr
	}
	e, ok := errors.AsType[*Error](err)
	if !ok {
		e = &Error{Code: ferry.CodeInternalError, Message: err.Error()}
	}
	return jsonrpc.AppendError(nil, id, int64(e.Code), e.Message, e.Data)
}
