package ferry_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// callBody is a modern tools/call of name.
func callBody(name string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` + modernMeta + `}}`
}

// serveCall calls name through h in process, as the caller who, and
// returns the body.
func serveCall(h http.Handler, name, who string, header ...string) string {
	req := httptest.NewRequest("POST", "http://127.0.0.1/", strings.NewReader(callBody(name)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	if who != "" {
		req.Header.Set("X-User", who)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Body.String()
}

// A call whose handler panics, returns an error, or is cancelled by its
// client gives its caller's place back: with MaxCallsPerCaller 1, each
// next call of the same caller is served, with and without a call
// timeout.
func TestFailedCallsGiveTheirPlaceBack(t *testing.T) {
	for _, timeout := range []time.Duration{-1, 0, 50 * time.Millisecond} {
		t.Run(fmt.Sprint("timeout ", timeout), func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: 1, CallRate: -1, CallTimeout: timeout}, Logger: discard})
			started := make(chan struct{}, 1)
			srv.AddTool(ferry.Tool{Name: "panics", Description: "Panics."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				panic("boom")
			})
			srv.AddTool(ferry.Tool{Name: "fails", Description: "Fails."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				return nil, fmt.Errorf("db down")
			})
			srv.AddTool(ferry.Tool{Name: "waits", Description: "Waits for its context."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			})
			srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				return ferry.NewResult(ferry.Text("quick")), nil
			})
			h := asCaller(ferry.NewHTTPHandler(srv, nil))
			for range 3 {
				if got := serveCall(h, "panics", "bob"); !strings.Contains(got, "failed unexpectedly") {
					t.Fatalf("panics: %s", got)
				}
				if got := serveCall(h, "fails", "bob"); !strings.Contains(got, "failed unexpectedly") {
					t.Fatalf("fails: %s", got)
				}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() {
					defer close(done)
					req := httptest.NewRequestWithContext(ctx, "POST", "http://127.0.0.1/", strings.NewReader(callBody("waits")))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
					req.Header.Set("Mcp-Method", "tools/call")
					req.Header.Set("Mcp-Name", "waits")
					req.Header.Set("X-User", "bob")
					h.ServeHTTP(httptest.NewRecorder(), req)
				}()
				select {
				case <-started:
					cancel()
				case <-time.After(5 * time.Second):
					t.Fatal("waits did not start")
				}
				<-done
				cancel()
				if got := serveCall(h, "quick", "bob"); !strings.Contains(got, `"text":"quick"`) {
					t.Fatalf("bob's call after the failures: %s", got)
				}
			}
		})
	}
}

// Anonymous HTTP callers are told apart by their connection's address
// only: X-Forwarded-For, X-Real-IP and Forwarded, which any client can
// write, do not give a caller a fresh bucket.
func TestRateLimitIgnoresForwardingHeaders(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallRate: 0.001, CallBurst: 2}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	h := ferry.NewHTTPHandler(srv, nil)
	var served int
	for i := range 6 {
		ip := fmt.Sprintf("203.0.113.%d", i)
		got := serveCall(h, "quick", "", "X-Forwarded-For", ip, "X-Real-IP", ip, "Forwarded", "for="+ip)
		if strings.Contains(got, `"text":"quick"`) {
			served++
		} else if !strings.Contains(got, "too many calls: a caller may make 0.001 a second") {
			t.Fatalf("call %d: %s", i, got)
		}
	}
	if served != 2 {
		t.Errorf("%d calls served with forged forwarding headers, want the burst of 2", served)
	}
}

// 100,000 distinct subjects, each calling once, leave the limiter's
// memory bounded (MaxTrackedCallers): the heap grows by a few megabytes,
// not by what 100,000 tracked callers would hold.
func TestLimiterMemoryStaysBoundedUnderManySubjects(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 calls")
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: -1}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	h := asCaller(ferry.NewHTTPHandler(srv, nil))
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	serveCall(h, "quick", "warm-up")
	before := heap()
	pad := strings.Repeat("x", 200)
	var refused int
	for i := range 100_000 {
		if got := serveCall(h, "quick", fmt.Sprintf("subject-%d-%s", i, pad)); !strings.Contains(got, `"text":"quick"`) {
			refused++
		}
	}
	grown := int64(heap()) - int64(before)
	t.Logf("heap grew by %d KiB after 100,000 subjects; %d calls refused", grown>>10, refused)
	if grown > 16<<20 {
		t.Errorf("heap grew by %d MiB", grown>>20)
	}
	runtime.KeepAlive(srv)
}

// A flood of distinct callers must not deny service to the next new
// caller: when MaxTrackedCallers are tracked, callers who called once are
// idle again within burst/rate, but they are only forgotten once a
// second, so until then every new caller shares the one overflow bucket
// and, once the flood has drained it, is refused its first call.
func TestFloodOfNewCallersDoesNotRefuseTheNextOne(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: -1}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	h := asCaller(ferry.NewHTTPHandler(srv, nil))
	for i := range 3 * ferry.MaxTrackedCallers {
		serveCall(h, "quick", fmt.Sprintf("bot-%d", i))
	}
	if got := serveCall(h, "quick", "ann"); !strings.Contains(got, `"text":"quick"`) {
		t.Errorf("ann's first call after the flood: %s", got)
	}
}

// Anonymous IPv6 callers are keyed by their whole address, and one
// client holds a /64 (2^64 addresses): each address gets a fresh bucket,
// so the per-caller rate limit does not hold for it.
func TestRateLimitHoldsForAnIPv6Prefix(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallRate: 0.001, CallBurst: 2}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{AllowedHosts: []string{"[2001:db8::1]"}})
	served := 0
	for i := range 6 {
		req := httptest.NewRequest("POST", "http://[2001:db8::1]/", strings.NewReader(callBody("quick")))
		req.RemoteAddr = fmt.Sprintf("[2001:db8:1:2::%x]:40000", i+1)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "quick")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if strings.Contains(w.Body.String(), `"text":"quick"`) {
			served++
		} else if !strings.Contains(w.Body.String(), "too many calls") {
			t.Fatalf("call %d: %s", i, w.Body.String())
		}
	}
	if served != 2 {
		t.Errorf("one /64 made %d calls past a burst of 2", served)
	}
}
