package ferry

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

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
