package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/bench/internal/wire"
	"github.com/google/go-cmp/cmp"
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
		if impl.Name == "floor" {
			continue // it answers every request with the same add result
		}
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

// modernHeader is the header of a 2026-07-28 add call: no session, the
// routing headers repeating the body.
func modernHeader() http.Header {
	hdr := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	for _, kv := range wire.ModernHeaders {
		hdr.Set(kv[0], kv[1])
	}
	return hdr
}

// TestLimitAnswersAsFerry checks that the limit writes the bytes Ferry
// writes for the benchmarked call, in both eras and over stdio, so that the
// ratio to it compares the same work.
func TestLimitAnswersAsFerry(t *testing.T) {
	ferry, limit := ferryImpl(), limitImpl()
	t.Run("legacy", func(t *testing.T) {
		fh, lh := ferry.Handler(false), limit.Handler(false)
		want, _ := post(t, fh, session(t, fh), wire.AppendAddCall(nil, 7))
		got, _ := post(t, lh, session(t, lh), wire.AppendAddCall(nil, 7))
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("limit answer differs from Ferry's (-ferry +limit):\n%s", diff)
		}
	})
	t.Run("modern", func(t *testing.T) {
		want, _ := post(t, ferry.Handler(false), modernHeader(), wire.AppendModernAddCall(nil, 7))
		got, _ := post(t, limit.Handler(false), modernHeader(), wire.AppendModernAddCall(nil, 7))
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("limit answer differs from Ferry's (-ferry +limit):\n%s", diff)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		in := string(wire.InitializeBody(1, "2025-06-18")) + "\n" + string(wire.InitializedBody) + "\n" +
			string(wire.AppendAddCall(nil, 7)) + "\n"
		want := lastLine(t, ferry, in)
		got := lastLine(t, limit, in)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("limit answer differs from Ferry's (-ferry +limit):\n%s", diff)
		}
	})
}

// lastLine serves in over stdio with impl and returns the last line written.
func lastLine(t *testing.T, impl Impl, in string) string {
	t.Helper()
	var out bytes.Buffer
	if err := impl.ServeStdio(t.Context(), io.NopCloser(strings.NewReader(in)), nopWriteCloser{&out}); err != nil {
		t.Fatalf("%s: %v", impl.Name, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1]
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func TestLimitRefusesWhatFerryRefuses(t *testing.T) {
	h := limitImpl().Handler(false)
	hdr := session(t, h)
	tests := []struct {
		name string
		hdr  http.Header
		body string
		code int
	}{
		{"wrong jsonrpc", hdr, `{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, codeInvalidRequest},
		{"object id", hdr, `{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, codeInvalidRequest},
		{"unknown method", hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/cal","params":{"name":"add"}}`, codeMethodNotFound},
		{"unknown tool", hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sub","arguments":{}}}`, codeInvalidParams},
		{"modern header mismatch", hdr, string(wire.AppendModernAddCall(nil, 1)), codeInvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, _ := post(t, h, tt.hdr, []byte(tt.body))
			var r struct{ Error *struct{ Code int } }
			if err := json.Unmarshal(msg, &r); err != nil || r.Error == nil || r.Error.Code != tt.code {
				t.Errorf("got %s, want error %d", msg, tt.code)
			}
		})
	}
}

// BenchmarkToolsCall measures one tools/call add through each
// implementation's stateless http.Handler, after the handshake, and the
// 2026-07-28 call (no handshake) for the implementations that speak it. The
// request and response writer are reused, so allocations are the handler's
// own.
func BenchmarkToolsCall(b *testing.B) {
	for _, impl := range Impls() {
		b.Run(impl.Name, func(b *testing.B) {
			h := impl.Handler(false)
			benchCall(b, h, session(b, h), wire.AppendAddCall(nil, 2))
		})
	}
	for _, impl := range []Impl{ferryImpl(), limitImpl()} {
		b.Run(impl.Name+"_modern", func(b *testing.B) {
			benchCall(b, impl.Handler(false), modernHeader(), wire.AppendModernAddCall(nil, 2))
		})
	}
}

func benchCall(b *testing.B, h http.Handler, hdr http.Header, payload []byte) {
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
}
