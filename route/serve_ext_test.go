package route_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/route"
)

func TestFromAgentCannotBeForgedWithAHeader(t *testing.T) {
	r := httptest.NewRequest("GET", "/status", nil)
	r.Header.Set("Mcp-Tool", "status")
	if tool, ok := route.FromAgent(r); ok {
		t.Errorf("FromAgent of a browser's request = %q, true", tool)
	}
	if id, ok := route.RequestID(r); ok {
		t.Errorf("RequestID of a browser's request = %q, true", id)
	}
}

func TestCancellingTheCallCancelsTheRoutesContext(t *testing.T) {
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			slow := &slowRoute{started: make(chan struct{}), done: make(chan error, 1)}
			m := newMCPServer(t)
			b := testBinding(m, service(slow), nil)
			route.AddTool[noIn](b, ferry.Tool{Name: "slow", Description: "Takes its time."}, "GET /slow")
			m.serve(t)
			ctx, cancel := context.WithCancel(t.Context())
			answered := make(chan struct{})
			go func() {
				defer close(answered)
				m.callContext(ctx, t, e, "slow", `{}`)
			}()
			<-slow.started
			cancel()
			select {
			case err := <-slow.done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the route's context ended with %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the route's context was not cancelled")
			}
			<-answered
		})
	}
}

// A route tool's own Timeout bounds the route's context, in place of the
// server's CallTimeout, in both eras: the call is answered as timed out,
// naming the tool's deadline, long before the server's.
func TestToolTimeoutEndsTheRoutesContext(t *testing.T) {
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			slow := &slowRoute{started: make(chan struct{}), done: make(chan error, 1)}
			m := newMCPServer(t)
			b := testBinding(m, service(slow), nil)
			route.AddTool[noIn](b, ferry.Tool{Name: "slow", Description: "Takes its time.", Timeout: 50 * time.Millisecond}, "GET /slow")
			m.serve(t)
			got := m.call(t, e, "slow", `{}`)
			if !got.IsError || got.Text != "unavailable: the tool timed out after 50ms" {
				t.Errorf("answer: %+v", got)
			}
			if err := <-slow.done; !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the route's context ended with %v, want context.DeadlineExceeded", err)
			}
		})
	}
}

// Calls in flight at once each get their own answer: the pooled response
// buffers are never shared.
func TestConcurrentCallsKeepTheirOwnAnswers(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				id := fmt.Sprintf("g%d-%d", g, i)
				var s seen
				r := m.call(t, eras[i%2], "get_order", `{"id":"`+id+`"}`)
				if err := json.Unmarshal(r.Structured, &s); err != nil || s.Values["id"] != id || s.Agent != "get_order" {
					t.Errorf("call for %s answered %+v (%v)", id, r, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// A route tool whose ferry.Tool says TaskSupport runs as a task for a
// client that speaks tasks: the route is served in the task, after the
// call's request ended, and its answer is the task's result.
func TestRouteToolRunsAsATask(t *testing.T) {
	srv := ferry.NewServer("route-test", "1.0.0", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{PollInterval: time.Millisecond}})
	b := route.New(srv, service(nil), nil)
	route.AddTool[orderIn](b, ferry.Tool{Name: "get_order", Description: "Fetches an order.", TaskSupport: ferry.TaskRequired}, "GET /orders/{id}")
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var task string
	res, err := c.CallToolAsTask(t.Context(), "get_order", map[string]any{"id": "A-7"}, func(tk *client.Task) { task = tk.ID })
	if err != nil || res.IsError || task == "" || !strings.Contains(res.Text()+string(res.StructuredContent), "A-7") {
		t.Errorf("as a task: %+v, %v (task %q)", res, err, task)
	}
}
