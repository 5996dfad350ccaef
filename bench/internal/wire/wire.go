// Package wire builds the client side of the benchmark's JSON-RPC messages
// and checks the responses, for both the load generator and the in-process
// benchmarks.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// InitializeBody returns an initialize request for protocol version proto.
func InitializeBody(id int64, proto string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"ferry-bench-load","version":"1.0.0"}}}`, id, proto)
}

// InitializedBody is the notifications/initialized notification.
var InitializedBody = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

// AppendAddCall appends a tools/call request for add(2, 3) with the given id.
func AppendAddCall(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, `,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`...)
}

// Response is the part of a JSON-RPC response that the generator checks.
type Response struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		ProtocolVersion   string `json:"protocolVersion"`
		StructuredContent *struct {
			Sum *int `json:"sum"`
		} `json:"structuredContent"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// DecodeResponse decodes msg and fails on a JSON-RPC error or a missing result.
func DecodeResponse(msg []byte) (*Response, error) {
	var r Response
	if err := json.Unmarshal(msg, &r); err != nil {
		return nil, fmt.Errorf("decoding response %.200q: %w", msg, err)
	}
	if r.Error != nil {
		return &r, fmt.Errorf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil {
		return &r, fmt.Errorf("response without result: %.200q", msg)
	}
	return &r, nil
}

// CheckAdd verifies that msg is a successful add result with sum 5, both as
// structured content and as a text block.
func CheckAdd(msg []byte) (*Response, error) {
	r, err := DecodeResponse(msg)
	if err != nil {
		return r, err
	}
	res := r.Result
	switch {
	case res.IsError:
		return r, fmt.Errorf("tool error: %.200q", msg)
	case res.StructuredContent == nil || res.StructuredContent.Sum == nil || *res.StructuredContent.Sum != 5:
		return r, fmt.Errorf("structuredContent is not {sum: 5}: %.200q", msg)
	case len(res.Content) != 1 || res.Content[0].Type != "text" || !jsonEqual(res.Content[0].Text, `{"sum":5}`):
		return r, fmt.Errorf("content is not one text block {\"sum\":5}: %.200q", msg)
	}
	return r, nil
}

func jsonEqual(got, want string) bool {
	if got == want {
		return true
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(got)); err != nil {
		return false
	}
	return buf.String() == want
}

// SSEMessage returns the last JSON-RPC response carried in an SSE body.
func SSEMessage(body []byte) ([]byte, error) {
	var last, data []byte
	flush := func() {
		if len(data) > 0 && (bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte(`"error"`))) {
			last = data
		}
		data = nil
	}
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte("\n"))
		body = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			flush()
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			v = bytes.TrimPrefix(v, []byte(" "))
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, v...)
		}
	}
	flush()
	if last == nil {
		return nil, errors.New("no JSON-RPC response in event stream")
	}
	return last, nil
}

// ModernVersion is the 2026-07-28 protocol version, whose requests carry
// their version and capabilities in _meta and need no handshake.
const ModernVersion = "2026-07-28"

// IsModern reports whether proto is a version of the stateless era.
func IsModern(proto string) bool { return proto >= ModernVersion }

// AppendModernAddCall appends a 2026-07-28 tools/call request for add(2, 3)
// with the given id. It goes with [ModernHeaders].
func AppendModernAddCall(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	return append(b, `,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"`+ModernVersion+`","io.modelcontextprotocol/clientCapabilities":{}}}}`...)
}

// ModernHeaders are the routing headers of a 2026-07-28 add call, which
// repeat what its body says.
var ModernHeaders = [][2]string{
	{"MCP-Protocol-Version", ModernVersion},
	{"Mcp-Method", "tools/call"},
	{"Mcp-Name", "add"},
}
