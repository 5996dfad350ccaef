package protomcp_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
)

// reusedBody is a request body that can be reset, so that allocs/op are
// the handlers' own.
type reusedBody struct{ bytes.Reader }

func (*reusedBody) Close() error { return nil }

// discardWriter is a response writer that keeps only the status and size.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}

// BenchmarkGetItem compares one get_item tools/call (modern, stateless,
// through the MCP HTTP handler: strict decode, protovalidate, the Connect
// handler in process, protojson out) with the same call made directly on
// the Connect handler, in Connect's JSON and binary encodings.
//
//	go test -run '^$' -bench GetItem -benchmem ./protomcp
func BenchmarkGetItem(b *testing.B) {
	s := testShop(b)
	api := testservice.Handler(s.sd, nil)
	b.Run("mcp_tools_call", func(b *testing.B) {
		srv := ferry.NewServer("bench", "1", &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1}, Logger: slog.New(slog.DiscardHandler)})
		if err := protomcp.AddService(srv, s.spec, protomcp.Handler(api), &protomcp.Options{Files: s.files}); err != nil {
			b.Fatal(err)
		}
		if err := srv.Check(); err != nil {
			b.Fatal(err)
		}
		hdr := http.Header{}
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Accept", "application/json, text/event-stream")
		hdr.Set("Mcp-Protocol-Version", "2026-07-28")
		hdr.Set("Mcp-Method", "tools/call")
		hdr.Set("Mcp-Name", "get_item")
		benchReused(b, ferry.NewHTTPHandler(srv, nil), "/mcp", hdr,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_item","arguments":{"sku":"BOOK-1"},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	})
	b.Run("connect_json", func(b *testing.B) {
		hdr := http.Header{}
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Connect-Protocol-Version", "1")
		benchReused(b, api, "/shop.v1.ShopService/GetItem", hdr, `{"sku":"BOOK-1"}`)
	})
	b.Run("connect_proto", func(b *testing.B) {
		hdr := http.Header{}
		hdr.Set("Content-Type", "application/proto")
		hdr.Set("Connect-Protocol-Version", "1")
		benchReused(b, api, "/shop.v1.ShopService/GetItem", hdr, "\x0a\x06BOOK-1")
	})
}

func benchReused(b *testing.B, h http.Handler, path string, hdr http.Header, payload string) {
	b.Helper()
	req := httptest.NewRequestWithContext(context.Background(), "POST", path, nil)
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
	if w.status != http.StatusOK || w.n < 20 {
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
