package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"
)

// limitImpl is the baseline: the leanest honest plain handler. It decodes
// each message once, with the arguments kept raw, decodes the arguments once
// in the tool body, and appends the answer by hand. It validates the
// JSON-RPC envelope, checks the method and the tool name, answers a
// 2026-07-28 request with the members that era requires (after checking its
// routing headers, as Ferry does), and writes the same bytes as Ferry. It
// keeps no sessions, so no framework can be faster by more than noise.
func limitImpl() Impl {
	return Impl{
		Name: "limit",
		Handler: func(stateful bool) http.Handler {
			if stateful {
				return nil
			}
			return http.HandlerFunc(serveLimitHTTP)
		},
		ServeStdio: serveLimitStdio,
	}
}

// ModernVersion is the protocol version of the stateless era, in which every
// request carries its version and capabilities in _meta.
const ModernVersion = "2026-07-28"

// limitRequest is a JSON-RPC message with the params members the limit
// reads, decoded in one pass; the arguments stay raw for the tool body.
type limitRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *limitParams    `json:"params"`
}

type limitParams struct {
	Name            string          `json:"name"`
	Arguments       json.RawMessage `json:"arguments"`
	ProtocolVersion string          `json:"protocolVersion"`
	Meta            *struct {
		Version string          `json:"io.modelcontextprotocol/protocolVersion"`
		Caps    json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	} `json:"_meta"`
}

// modern reports whether p asks for the 2026-07-28 era.
func (p *limitParams) modern() bool {
	return p != nil && p.Meta != nil && p.Meta.Version == ModernVersion
}

type toolInfo struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

var limitTools = []toolInfo{
	{Name: "add", Description: AddDescription, InputSchema: AddInputSchema, OutputSchema: AddOutputSchema},
	{Name: "echo", Description: EchoDescription, InputSchema: EchoInputSchema},
}

// limitServerInfo is the serverInfo every implementation reports.
const limitServerInfo = `{"name":"bench","version":"1.0.0"}`

// JSON-RPC error codes the limit answers with.
const (
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// headers is the part of an HTTP request a 2026-07-28 request is checked
// against; nil on stdio, which has no routing headers.
type headers interface{ Get(string) string }

// appendLimit appends the response to one decoded message, or nothing for
// a notification.
func appendLimit(b []byte, req *limitRequest, hd headers) []byte {
	start := len(b)
	if req.JSONRPC != "2.0" || req.Method == "" {
		return appendLimitError(b, nil, codeInvalidRequest, "invalid request")
	}
	if len(req.ID) == 0 {
		return b // a notification
	}
	if c := req.ID[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
		return appendLimitError(b, nil, codeInvalidRequest, "id must be a string or a number")
	}
	modern := req.Params.modern()
	if modern {
		if len(req.Params.Meta.Caps) == 0 || req.Params.Meta.Caps[0] != '{' {
			return appendLimitError(b, req.ID, codeInvalidParams, "missing clientCapabilities")
		}
		if hd != nil && (hd.Get("MCP-Protocol-Version") != ModernVersion || hd.Get("Mcp-Method") != req.Method ||
			(req.Method == "tools/call" && hd.Get("Mcp-Name") != req.Params.Name)) {
			return appendLimitError(b, req.ID, codeInvalidRequest, "header mismatch")
		}
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, req.ID...)
	b = append(b, `,"result":{`...)
	switch req.Method {
	case "tools/call":
		if req.Params == nil {
			return appendLimitError(b[:start], req.ID, codeInvalidParams, "missing params")
		}
		var ok bool
		if b, ok = appendLimitCall(b, req.Params); !ok {
			return appendLimitError(b[:start], req.ID, codeInvalidParams, "unknown tool "+strconv.Quote(req.Params.Name))
		}
	case "initialize":
		v := "2025-06-18"
		if req.Params != nil && req.Params.ProtocolVersion != "" {
			v = req.Params.ProtocolVersion
		}
		b = append(b, `"protocolVersion":`...)
		b = appendJSONString(b, v)
		b = append(b, `,"capabilities":{"tools":{}},"serverInfo":`+limitServerInfo...)
	case "ping":
	case "tools/list":
		tools, _ := json.Marshal(limitTools)
		b = append(b, `"tools":`...)
		b = append(b, tools...)
	default:
		return appendLimitError(b[:start], req.ID, codeMethodNotFound, "method not found")
	}
	if modern {
		b = append(b, `,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":`+limitServerInfo+`}`...)
	}
	return append(b, "}}"...)
}

// appendLimitCall appends the members of a tools/call result; false if the
// tool is unknown.
func appendLimitCall(b []byte, p *limitParams) ([]byte, bool) {
	switch p.Name {
	case "add":
		out, text, err := Add(p.Arguments)
		if err != nil {
			return appendToolError(b, err), true
		}
		b = append(b, `"content":[{"type":"text","text":`...)
		b = appendJSONString(b, text)
		b = append(b, `}],"structuredContent":{"sum":`...)
		b = strconv.AppendInt(b, int64(out.Sum), 10)
		return append(b, '}'), true
	case "echo":
		var in EchoInput
		if err := json.Unmarshal(p.Arguments, &in); err != nil {
			return appendToolError(b, err), true
		}
		b = append(b, `"content":[{"type":"text","text":`...)
		b = appendJSONString(b, in.Text)
		return append(b, "}]"...), true
	}
	return b, false
}

func appendToolError(b []byte, err error) []byte {
	b = append(b, `"content":[{"type":"text","text":`...)
	b = appendJSONString(b, err.Error())
	return append(b, `}],"isError":true`...)
}

func appendLimitError(b []byte, id json.RawMessage, code int, msg string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if len(id) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, msg)
	return append(b, "}}"...)
}

// appendJSONString appends s as a JSON string, escaped as Ferry escapes it.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// limitBuf holds a request body and a response, reused across requests as
// any lean server would.
type limitBuf struct{ in, out []byte }

var limitBufs = sync.Pool{New: func() any { return &limitBuf{in: make([]byte, 0, 4096), out: make([]byte, 0, 4096)} }}

var limitJSON = []string{"application/json"}

func serveLimitHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	buf := limitBufs.Get().(*limitBuf)
	defer limitBufs.Put(buf)
	in, err := readAll(buf.in[:0], r.Body)
	buf.in = in
	if err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	var req limitRequest
	if err := json.Unmarshal(in, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	out := appendLimit(buf.out[:0], &req, r.Header)
	buf.out = out
	if len(out) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header()["Content-Type"] = limitJSON
	_, _ = w.Write(out)
}

// readAll appends all of r to b without allocating once b is large enough.
func readAll(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// serveLimitStdio answers messages in order on one goroutine, flushing
// whenever no further input is buffered.
func serveLimitStdio(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	var out []byte
	for ctx.Err() == nil {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, io.EOF) {
			return bw.Flush()
		}
		if err != nil {
			return err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		var req limitRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return err
		}
		if out = appendLimit(out[:0], &req, nil); len(out) > 0 {
			if _, err := bw.Write(append(out, '\n')); err != nil {
				return err
			}
		}
		if br.Buffered() == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}
