package ferry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// syncWriter is a ResponseWriter the test may read while the handler
// writes.
type syncWriter struct {
	mu     sync.Mutex
	header http.Header
	buf    strings.Builder
}

func (w *syncWriter) Header() http.Header { return w.header }
func (w *syncWriter) WriteHeader(int)     {}
func (w *syncWriter) Flush()              {}
func (w *syncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}
func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// A modern listen stream over HTTP gets a keepalive comment while nothing
// else happens, and ends when the client goes.
func TestListenKeepsHTTPStreamAlive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := NewServer("s", "1", nil)
		srv.AddResource(Resource{URI: "r://x", Name: "x"}, func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) {
			return nil, nil
		})
		h := NewHTTPHandler(srv, nil)
		body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["r://x"]},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		ctx, cancel := context.WithCancel(t.Context())
		req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
		req.Host = "localhost"
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		rec := &syncWriter{header: http.Header{}}
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(rec, req)
			close(done)
		}()
		synctest.Wait()
		if got := rec.String(); !strings.Contains(got, "notifications/subscriptions/acknowledged") || strings.Contains(got, "keepalive") {
			t.Fatalf("before the interval: %q", got)
		}
		time.Sleep(keepaliveInterval + time.Second)
		synctest.Wait()
		if got := rec.String(); !strings.Contains(got, ": keepalive") {
			t.Fatalf("after the interval, no keepalive: %q", got)
		}
		cancel()
		<-done
	})
}
