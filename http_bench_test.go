package ferry

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"bytes"
)

// benchOptions are the benchmark servers' options: the defaults, but a
// call rate no loop reaches, so that every call takes the path a served
// call takes (the limiter included) instead of being refused.
func benchOptions() *ServerOptions {
	return &ServerOptions{Limits: Limits{CallRate: 1e9}, Logger: slog.New(slog.DiscardHandler)}
}

func benchServer() *Server {
	srv := NewServer("bench", "1.0.0", benchOptions())
	srv.AddTool(Tool{Name: "add", Description: "Adds two integers.",
		RawInputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		RawOutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)},
		func(_ context.Context, req *CallToolRequest) (*ToolResult, error) {
			var in struct{ A, B int }
			if err := json.Unmarshal(req.Arguments, &in); err != nil {
				return nil, err
			}
			out := struct {
				Sum int `json:"sum"`
			}{in.A + in.B}
			return &ToolResult{Content: []Content{Text(`{"sum":` + strconv.Itoa(out.Sum) + `}`)}, StructuredContent: out}, nil
		})
	return srv
}

// discardWriter is a minimal ResponseWriter, so the benchmark measures the
// handler and not the recorder.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// BenchmarkHTTPToolsCall measures one stateless legacy tools/call through
// the HTTP handler, the path the bench/ ratios compare with peers.
func BenchmarkHTTPToolsCall(b *testing.B) {
	b.Run("raw", func(b *testing.B) { benchHTTPToolsCall(b, benchServer()) })
	b.Run("modern", func(b *testing.B) {
		h := NewHTTPHandler(benchServer(), nil)
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
			req.Host = "127.0.0.1:8080"
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "add")
			w := &discardWriter{h: http.Header{}}
			h.ServeHTTP(w, req)
			if w.status != 200 || w.n < 60 {
				b.Fatal(w.status, w.n)
			}
		}
	})
	b.Run("typed", func(b *testing.B) {
		srv := NewServer("bench", "1.0.0", benchOptions())
		type addIn struct{ A, B int }
		type addOut struct {
			Sum int `json:"sum"`
		}
		AddTool(srv, Tool{Name: "add", Description: "Adds two integers."},
			func(_ context.Context, in addIn) (addOut, error) { return addOut{in.A + in.B}, nil })
		benchHTTPToolsCall(b, srv)
	})
}

func benchHTTPToolsCall(b *testing.B, srv *Server) {
	h := NewHTTPHandler(srv, nil)
	rec := httptest.NewRecorder()
	init := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
	init.Host = "127.0.0.1:8080"
	h.ServeHTTP(rec, init)
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		b.Fatal("no session id")
	}
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"A":2,"B":3}}}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Host = "127.0.0.1:8080"
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != 200 || w.n < 60 {
			b.Fatal(w.status, w.n)
		}
	}
}

// reusedBody is a request body that can be reset, so that a benchmark's
// allocations are the handler's own.
type reusedBody struct{ bytes.Reader }

func (*reusedBody) Close() error { return nil }

// BenchmarkModernToolsCall measures one stateless tools/call through the
// HTTP handler in each era, with the request, its body and the response
// writer reused, so that allocs/op counts only what the handler allocates
// and a -memprofile shows where the 2026-07-28 path allocates more than the
// legacy one.
func BenchmarkModernToolsCall(b *testing.B) {
	b.Run("legacy", func(b *testing.B) {
		h := NewHTTPHandler(benchServer(), nil)
		rec := httptest.NewRecorder()
		init := httptest.NewRequest("POST", "/mcp", bytes.NewReader([]byte(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)))
		init.Host = "127.0.0.1:8080"
		h.ServeHTTP(rec, init)
		sid := rec.Header().Get(headerSessionID)
		if sid == "" {
			b.Fatal("no session id")
		}
		hdr := http.Header{}
		hdr.Set(headerSessionID, sid)
		hdr.Set(headerProtocolVersion, "2025-06-18")
		hdr.Set("Accept", "application/json, text/event-stream")
		benchReused(b, h, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
	})
	b.Run("modern", func(b *testing.B) {
		hdr := http.Header{}
		hdr.Set(headerProtocolVersion, Version20260728)
		hdr.Set(headerMethod, "tools/call")
		hdr.Set(headerName, "add")
		hdr.Set("Accept", "application/json, text/event-stream")
		benchReused(b, NewHTTPHandler(benchServer(), nil), hdr,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	})
}

func benchReused(b *testing.B, h http.Handler, hdr http.Header, payload string) {
	req := httptest.NewRequestWithContext(context.Background(), "POST", "/mcp", nil)
	req.Host = "127.0.0.1:8080"
	req.Header = hdr
	req.ContentLength = int64(len(payload))
	var body reusedBody
	w := &discardWriter{h: http.Header{}}
	serve := func() {
		clear(w.h)
		w.status, w.n = 0, 0
		body.Reset([]byte(payload))
		req.Body = &body
		h.ServeHTTP(w, req)
	}
	serve()
	if w.status != http.StatusOK || w.n < 60 {
		b.Fatalf("HTTP %d, %d bytes", w.status, w.n)
	}
	b.ReportAllocs()
	for b.Loop() {
		serve()
		if w.status != http.StatusOK {
			b.Fatalf("HTTP %d", w.status)
		}
	}
}
