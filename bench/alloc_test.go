package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

// recorder is a reusable http.ResponseWriter that allocates nothing once
// warm, so that allocs/op counts only the handler's own allocations.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *recorder) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func (w *recorder) Flush() {}

func (w *recorder) reset() {
	clear(w.header)
	w.code = 0
	w.body.Reset()
}

// body is a reusable request body.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// session performs the legacy handshake against h and returns the headers
// that later requests must carry.
func session(tb testing.TB, h http.Handler) http.Header {
	tb.Helper()
	hdr := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	msg, rec := post(tb, h, hdr, wire.InitializeBody(1, "2025-06-18"))
	r, err := wire.DecodeResponse(msg)
	if err != nil {
		tb.Fatalf("initialize: %v", err)
	}
	if id := rec.Header().Get("Mcp-Session-Id"); id != "" {
		hdr.Set("Mcp-Session-Id", id)
	}
	hdr.Set("MCP-Protocol-Version", r.Result.ProtocolVersion)
	req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", bytes.NewReader(wire.InitializedBody))
	req.Header = hdr.Clone()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code/100 != 2 {
		tb.Fatalf("notifications/initialized: HTTP %d: %s", w.Code, w.Body)
	}
	return hdr
}

// post sends one message through h and returns the JSON-RPC response.
func post(tb testing.TB, h http.Handler, hdr http.Header, msg []byte) ([]byte, *httptest.ResponseRecorder) {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", bytes.NewReader(msg))
	req.Header = hdr.Clone()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		tb.Fatalf("HTTP %d: %s", w.Code, w.Body)
	}
	out := w.Body.Bytes()
	if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		var err error
		if out, err = wire.SSEMessage(out); err != nil {
			tb.Fatal(err)
		}
	}
	return out, w
}

func TestTools(t *testing.T) {
	for _, impl := range Impls() {
		t.Run(impl.Name, func(t *testing.T) {
			h := impl.Handler(false)
			hdr := session(t, h)
			msg, _ := post(t, h, hdr, wire.AppendAddCall(nil, 2))
			if _, err := wire.CheckAdd(msg); err != nil {
				t.Errorf("add: %v", err)
			}
			msg, _ = post(t, h, hdr, []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
			var echo struct {
				Result struct {
					Content []struct{ Type, Text string }
				}
			}
			if err := json.Unmarshal(msg, &echo); err != nil || len(echo.Result.Content) != 1 || echo.Result.Content[0].Text != "hi" {
				t.Errorf("echo: got %s (%v)", msg, err)
			}
			msg, _ = post(t, h, hdr, []byte(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`))
			for _, want := range []string{`"add"`, `"echo"`, `"outputSchema"`} {
				if !bytes.Contains(msg, []byte(want)) {
					t.Errorf("tools/list lacks %s: %s", want, msg)
				}
			}
		})
	}
}

// BenchmarkToolsCall measures one tools/call add through each
// implementation's stateless http.Handler, after the handshake. The request
// and response writer are reused, so allocations are the handler's own.
func BenchmarkToolsCall(b *testing.B) {
	for _, impl := range Impls() {
		b.Run(impl.Name, func(b *testing.B) {
			h := impl.Handler(false)
			hdr := session(b, h)
			payload := wire.AppendAddCall(nil, 2)
			req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "http://localhost/mcp", nil)
			req.Header = hdr
			req.ContentLength = int64(len(payload))
			var rb body
			w := &recorder{header: http.Header{}}
			serve := func() {
				w.reset()
				rb.Reset(payload)
				req.Body = &rb
				h.ServeHTTP(w, req)
			}
			serve()
			msg := w.body.Bytes()
			if strings.HasPrefix(w.header.Get("Content-Type"), "text/event-stream") {
				var err error
				if msg, err = wire.SSEMessage(msg); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := wire.CheckAdd(msg); err != nil {
				b.Fatalf("HTTP %d: %v", w.code, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				serve()
				if w.code != http.StatusOK {
					b.Fatalf("HTTP %d: %s", w.code, w.body.Bytes())
				}
			}
		})
	}
}
