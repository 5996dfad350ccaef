package workbench_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/workbench"
)

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// benchServer is a server of one small tool, observed by obs (nil for
// none), at a call rate no loop reaches.
func benchServer(obs ferry.Observer) *ferry.Server {
	srv := ferry.NewServer("bench", "1.0.0", &ferry.ServerOptions{Observer: obs,
		Limits: ferry.Limits{CallRate: 1e9}, Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "add", Description: "Adds.", ReadOnly: true},
		func(_ context.Context, in addIn) (addOut, error) { return addOut{in.A + in.B}, nil })
	return srv
}

// discard is a minimal ResponseWriter, so that the handler is measured
// and not a recorder.
type discard struct {
	h      http.Header
	status int
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) WriteHeader(code int)        { w.status = code }
func (w *discard) Write(b []byte) (int, error) { return len(b), nil }

// noop is an observer that does nothing: what any observer costs the
// server, apart from the trace's own work.
type noop struct{}

func (noop) Start(ctx context.Context, _ *ferry.RequestInfo) context.Context { return ctx }
func (noop) End(context.Context, *ferry.RequestInfo, ferry.RequestEnd)       {}

// BenchmarkToolsCallTrace measures a 2026-07-28 tools/call through the
// HTTP handler, by a caller, without an observer, with one that does nothing, and with the trace:
// what the trace adds to every call. Its instructions per call, which
// a shared machine's timings hide, are counted with callgrind (Go's
// signals off, no GC, the difference of N and 1 calls over N-1):
//
//	CGO_ENABLED=0 go test -c -o wb.test .
//	GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
//	  ./wb.test -test.run '^$' -test.bench '^BenchmarkToolsCallTrace$/^trace$' -test.benchtime 5001x
func BenchmarkToolsCallTrace(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1"}}}}`
	p := &ferry.Principal{Subject: "bench", Issuer: "api-key"}
	for _, tt := range []struct {
		name string
		obs  ferry.Observer
	}{{"off", nil}, {"noop", noop{}}, {"trace", workbench.NewTrace(nil)}} {
		b.Run(tt.name, func(b *testing.B) {
			h := ferry.NewHTTPHandler(benchServer(tt.obs), nil)
			ctx := ferry.WithPrincipal(context.Background(), p)
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
				req.Host = "127.0.0.1:8080"
				req.Header.Set("MCP-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "add")
				w := &discard{h: http.Header{}}
				h.ServeHTTP(w, req)
				if w.status != 200 {
					b.Fatal(w.status)
				}
			}
		})
	}
}

// BenchmarkToolsCallTraceClient measures a call through ferrytest's
// client, in memory: the whole round trip a test makes.
func BenchmarkToolsCallTraceClient(b *testing.B) {
	for _, tt := range []struct {
		name string
		obs  ferry.Observer
	}{{"off", nil}, {"trace", workbench.NewTrace(nil)}} {
		b.Run(tt.name, func(b *testing.B) {
			c := ferrytest.NewClient(b, benchServer(tt.obs), &ferrytest.Options{Principal: &ferry.Principal{Subject: "bench"}})
			args := addIn{2, 3}
			b.ReportAllocs()
			for b.Loop() {
				c.CallTool(b.Context(), "add", args)
			}
		})
	}
}

// TestTraceAllocs checks what the trace costs a call in allocations:
// none beyond the call's own, since an event is copied into the ring.
func TestTraceAllocs(t *testing.T) {
	tr := workbench.NewTrace(nil)
	ctx := ferry.WithPrincipal(t.Context(), &ferry.Principal{Subject: "a"})
	info := &ferry.RequestInfo{Method: "tools/call", Name: "add", Target: ferry.TargetTool}
	allocs := testing.AllocsPerRun(1000, func() {
		tr.End(tr.Start(ctx, info), info, ferry.RequestEnd{})
	})
	if allocs != 0 {
		t.Errorf("recording an ok call allocates %v times", allocs)
	}
}

// BenchmarkTraceEnd measures what the trace does for one call: the
// event's fields, the caller from the context, the copy into the ring.
func BenchmarkTraceEnd(b *testing.B) {
	tr := workbench.NewTrace(nil)
	ctx := ferry.WithPrincipal(context.Background(), &ferry.Principal{Subject: "a"})
	info := &ferry.RequestInfo{Method: "tools/call", Name: "add", Target: ferry.TargetTool, Client: "bench-client"}
	b.ReportAllocs()
	for b.Loop() {
		tr.End(ctx, info, ferry.RequestEnd{Duration: time.Millisecond})
	}
}
