//go:build !race

package ferry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// The observer hook's claim, "no cost while no Observer is set", pinned:
// a tools/call through the HTTP handler allocates no more than it did
// before the hook (the allocations and bytes bench/compare.sh measured
// at af975dd and 5d953ed: 29 and 2104 for a stateless legacy call, 30
// and 2296 for a 2026-07-28 one). A new allocation on the path every
// request takes, observer or not, fails this test. (Not under -race,
// which allocates on its own.)
func TestToolsCallAllocationsArePinned(t *testing.T) {
	hl := NewHTTPHandler(benchServer(), nil)
	rec := httptest.NewRecorder()
	init := httptest.NewRequest("POST", "/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`))
	init.Host = "127.0.0.1:8080"
	hl.ServeHTTP(rec, init)
	legacy := http.Header{}
	legacy.Set(headerSessionID, rec.Header().Get(headerSessionID))
	legacy.Set(headerProtocolVersion, "2025-06-18")
	legacy.Set("Accept", "application/json, text/event-stream")
	modern := http.Header{}
	modern.Set(headerProtocolVersion, Version20260728)
	modern.Set(headerMethod, "tools/call")
	modern.Set(headerName, "add")
	modern.Set("Accept", "application/json, text/event-stream")
	for _, tt := range []struct {
		name          string
		h             *HTTPHandler
		hdr           http.Header
		body          string
		allocs, bytes uint64
	}{
		{"legacy", hl, legacy, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`, 29, 2104},
		{"modern", NewHTTPHandler(benchServer(), nil), modern, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, 30, 2296},
	} {
		t.Run(tt.name, func(t *testing.T) {
			serve := reusedCall(t, tt.h, tt.hdr, tt.body)
			// The least of three runs: a GC cycle's own allocations can
			// land in one.
			allocs, bytes := uint64(1<<30), uint64(1<<30)
			for range 3 {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				for range 2000 {
					serve()
				}
				runtime.ReadMemStats(&after)
				allocs = min(allocs, (after.Mallocs-before.Mallocs)/2000)
				bytes = min(bytes, (after.TotalAlloc-before.TotalAlloc)/2000)
			}
			t.Logf("%d allocations, %d bytes", allocs, bytes)
			if allocs > tt.allocs || bytes > tt.bytes+16 {
				t.Errorf("a %s tools/call allocates %d times, %d bytes; want at most %d, %d", tt.name, allocs, bytes, tt.allocs, tt.bytes)
			}
		})
	}
}

// reusedCall returns a function that serves one request of payload
// through h, with the request, its body and the response writer reused.
func reusedCall(t *testing.T, h http.Handler, hdr http.Header, payload string) func() {
	t.Helper()
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
		t.Fatalf("HTTP %d, %d bytes", w.status, w.n)
	}
	return serve
}
