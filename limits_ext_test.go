package ferry_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A call past its CallTimeout is answered at the deadline, in both eras,
// whether its handler heeds its context or ignores it; the handler's
// context carries the deadline.
func TestSlowToolTimesOut(t *testing.T) {
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, CallTimeout: 50 * time.Millisecond})
	var sawDeadline atomic.Bool
	srv.AddTool(ferry.Tool{Name: "polite", Description: "Waits for its context."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		_, ok := ctx.Deadline()
		sawDeadline.Store(ok)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv.AddTool(ferry.Tool{Name: "stuck", Description: "Ignores its context."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		<-stuck
		return ferry.NewResult(ferry.Text("late")), nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	const want = `"content":[{"type":"text","text":"unavailable: the tool timed out after 50ms"}],"isError":true`
	for _, e := range eras {
		for _, tool := range []string{"polite", "stuck"} {
			t.Run(e.name+"/"+tool, func(t *testing.T) {
				start := time.Now()
				got := e.send(t, ts.URL, "tools/call", tool, `"name":"`+tool+`","arguments":{}`)
				if !strings.Contains(got.body, want) || got.status != 200 {
					t.Errorf("%d %s; want %s", got.status, got.body, want)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("answered after %v", d)
				}
			})
		}
	}
	if !sawDeadline.Load() {
		t.Error("the handler's context has no deadline")
	}
}

// A caller with MaxCallsPerCaller calls in flight is refused another
// without running it; other callers are not, and the place frees when a
// call ends.
func TestTooManyConcurrentCallsAreRefused(t *testing.T) {
	release := make(chan struct{})
	var held sync.WaitGroup
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, MaxCallsPerCaller: 2, CallRate: -1})
	srv.AddTool(ferry.Tool{Name: "hold", Description: "Waits to be released."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		held.Done()
		<-release
		return ferry.NewResult(ferry.Text("done")), nil
	})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers at once."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	modern := eras[1]
	bob := []string{"X-User", "bob"}
	var calls sync.WaitGroup
	held.Add(2)
	for range 2 {
		calls.Go(func() { modern.send(t, ts.URL, "tools/call", "hold", `"name":"hold","arguments":{}`, bob...) })
	}
	held.Wait()
	const want = `"text":"unavailable: too many calls at once, retry in a moment"}],"isError":true`
	for _, e := range eras {
		if got := e.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, bob...); !strings.Contains(got.body, want) {
			t.Errorf("%s: bob's third call: %s; want %s", e.name, got.body, want)
		}
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("%d runs, want 2", n)
	}
	if got := modern.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, "X-User", "carol"); !strings.Contains(got.body, `"quick"`) {
		t.Errorf("carol's call: %s", got.body)
	}
	close(release)
	calls.Wait()
	if got := modern.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, bob...); !strings.Contains(got.body, `"text":"quick"`) {
		t.Errorf("bob's call after his ended: %s", got.body)
	}
}

// A call answered at its deadline keeps its caller's place until its
// handler returns: handlers that ignore their context cannot pile up.
func TestTimedOutCallKeepsItsPlaceUntilItsHandlerReturns(t *testing.T) {
	stuck := make(chan struct{})
	returned := make(chan struct{})
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, CallTimeout: 30 * time.Millisecond, MaxCallsPerCaller: 1, CallRate: -1})
	srv.AddTool(ferry.Tool{Name: "stuck", Description: "Ignores its context."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		<-stuck
		defer close(returned)
		return nil, nil
	})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers at once."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	modern, bob := eras[1], []string{"X-User", "bob"}
	if got := modern.send(t, ts.URL, "tools/call", "stuck", `"name":"stuck","arguments":{}`, bob...); !strings.Contains(got.body, "timed out after 30ms") {
		t.Fatalf("stuck: %s", got.body)
	}
	if got := modern.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, bob...); !strings.Contains(got.body, "too many calls at once") {
		t.Errorf("while the handler runs on: %s", got.body)
	}
	close(stuck)
	<-returned
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := modern.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, bob...)
		if strings.Contains(got.body, `"text":"quick"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the handler returned: %s", got.body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A cancelled call whose handler ignores its context is waited for no
// longer than its deadline: the connection can end.
func TestCancelledCallWaitsNoLongerThanItsDeadline(t *testing.T) {
	stuck := make(chan struct{})
	t.Cleanup(func() { close(stuck) })
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, CallTimeout: 50 * time.Millisecond})
	started := make(chan struct{})
	srv.AddTool(ferry.Tool{Name: "stuck", Description: "Ignores its context."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		close(started)
		<-stuck
		return nil, nil
	})
	cr, cw := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: cr, Writer: &out}) }()
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`+"\n")
	<-started
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	cw.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run still waits for the handler")
	}
	if strings.Contains(out.String(), `"id":1`) {
		t.Errorf("the cancelled call was answered: %s", out.String())
	}
}
