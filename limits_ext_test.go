package ferry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// A call past its CallTimeout reads as timed out, in both eras, when its
// handler waits on its context, asks it for its error, or returns an
// error late; a result returned late, without error, is kept. The
// handler's context carries the deadline.
func TestSlowToolTimesOut(t *testing.T) {
	const timeout = 50 * time.Millisecond
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: timeout}, Logger: discard})
	var sawDeadline atomic.Bool
	tools := map[string]ferry.ToolHandler{
		"polite": func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			_, ok := ctx.Deadline()
			sawDeadline.Store(ok)
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"polls": func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			for ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			return nil, fmt.Errorf("query: %w", ctx.Err())
		},
		"late-error": func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			time.Sleep(2 * timeout)
			return nil, errors.New("the database went away")
		},
		"late-result": func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			time.Sleep(2 * timeout)
			return ferry.NewResult(ferry.Text("late")), nil
		},
	}
	for name, h := range tools {
		srv.AddTool(ferry.Tool{Name: name, Description: "Runs slowly."}, h)
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	const timedOut = `"content":[{"type":"text","text":"unavailable: the tool timed out after 50ms"}],"isError":true`
	for _, e := range eras {
		for _, tool := range []string{"polite", "polls", "late-error", "late-result"} {
			t.Run(e.name+"/"+tool, func(t *testing.T) {
				want := timedOut
				if tool == "late-result" {
					want = `"content":[{"type":"text","text":"late"}]`
				}
				start := time.Now()
				got := e.send(t, ts.URL, "tools/call", tool, `"name":"`+tool+`","arguments":{}`)
				if !strings.Contains(got.body, want) || got.status != 200 {
					t.Errorf("%d %s; want %s", got.status, got.body, want)
				}
				if d := time.Since(start); d < timeout || d > 5*time.Second {
					t.Errorf("answered after %v", d)
				}
			})
		}
	}
	if !sawDeadline.Load() {
		t.Error("the handler's context has no deadline")
	}
}

// The handler's context is done once its call has been answered, so a
// context a handler kept cannot outlive the call.
func TestCallContextEndsWithItsCall(t *testing.T) {
	kept := make(chan context.Context, 2)
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "keep", Description: "Keeps its context."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		kept <- ctx
		return ferry.NewResult(ferry.Text("kept")), nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		if got := e.send(t, ts.URL, "tools/call", "keep", `"name":"keep","arguments":{}`); !strings.Contains(got.body, `"kept"`) {
			t.Fatalf("%s: %s", e.name, got.body)
		}
		ctx := <-kept
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the kept context is not done", e.name)
		}
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("%s: Err = %v", e.name, ctx.Err())
		}
	}
}

// A caller with MaxCallsPerCaller calls in flight is refused another
// without running it; other callers are not, and the place frees when a
// call ends.
func TestTooManyConcurrentCallsAreRefused(t *testing.T) {
	release := make(chan struct{})
	var held sync.WaitGroup
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: 2, CallRate: -1}, Logger: discard})
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
	// The refusal says which limit, its value, and how to raise it.
	const want = `"text":"unavailable: too many calls at once: a caller may have 2 running (MaxCallsPerCaller); ` +
		`retry when one returns, or have the server's operator raise the limit (ferry serve: -max-calls-per-caller)"}],"isError":true`
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

// A call keeps its caller's place until its handler returns, past its
// deadline too: handlers that ignore their context cannot pile up. What
// the late handler returns without error is its answer.
func TestTimedOutCallKeepsItsPlaceUntilItsHandlerReturns(t *testing.T) {
	stuck, started := make(chan struct{}), make(chan struct{})
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: 30 * time.Millisecond, MaxCallsPerCaller: 1, CallRate: -1}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "stuck", Description: "Ignores its context."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		close(started)
		<-stuck
		return ferry.NewResult(ferry.Text("at last")), nil
	})
	srv.AddTool(ferry.Tool{Name: "quick", Description: "Answers at once."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("quick")), nil
	})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	modern, bob := eras[1], []string{"X-User", "bob"}
	answer := make(chan string, 1)
	go func() {
		answer <- modern.send(t, ts.URL, "tools/call", "stuck", `"name":"stuck","arguments":{}`, bob...).body
	}()
	<-started
	time.Sleep(60 * time.Millisecond) // past the deadline
	if got := modern.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, bob...); !strings.Contains(got.body, "too many calls at once") {
		t.Errorf("while the handler runs on: %s", got.body)
	}
	select {
	case got := <-answer:
		t.Fatalf("answered before its handler returned: %s", got)
	default:
	}
	close(stuck)
	if got := <-answer; !strings.Contains(got, `"text":"at last"`) {
		t.Errorf("the late handler's result: %s", got)
	}
	if got := modern.send(t, ts.URL, "tools/call", "quick", `"name":"quick","arguments":{}`, bob...); !strings.Contains(got.body, `"text":"quick"`) {
		t.Errorf("after the handler returned: %s", got.body)
	}
}

// A cancelled call ends its handler's context, well before its deadline,
// and is not answered; the connection can end.
func TestCancelledCallEndsItsHandlersContext(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: time.Hour}, Logger: discard})
	started, saw := make(chan struct{}), make(chan error, 1)
	srv.AddTool(ferry.Tool{Name: "wait", Description: "Waits for its context."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		close(started)
		<-ctx.Done()
		saw <- ctx.Err()
		return nil, ctx.Err()
	})
	cr, cw := io.Pipe()
	var out ferrytest.Buffer
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: cr, Writer: &out}) }()
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}`+"\n")
	<-started
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	select {
	case err := <-saw:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's context did not end")
	}
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
