package route_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
	"github.com/google/go-cmp/cmp"
)

func TestOnlyTheNamedHeadersTravel(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), &route.Options{
		Forward: []string{"x-tenant"},
		Header:  http.Header{"X-Service": {"orders-agent"}, "Authorization": {"Bearer service-token"}},
		Host:    "orders.internal",
	})
	m.serve(t)
	mcpHeaders := []string{
		"Authorization", "Bearer user-token", "Cookie", "sid=1", "X-Tenant", "acme",
		"Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "Tracestate", "vendor=1",
		"X-Secret", "must not travel", "X-User", "ada", "User-Agent", "agent/1", "X-Forwarded-For", "10.0.0.1",
	}
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			r := m.call(t, e, "status", `{}`, mcpHeaders...)
			var s seen
			if err := json.Unmarshal(r.Structured, &s); err != nil {
				t.Fatalf("%+v: %v", r, err)
			}
			want := map[string][]string{
				"Accept":        {"application/json, application/problem+json, */*;q=0.5"},
				"Authorization": {"Bearer user-token"}, // the caller's own, over the fixed one
				"Cookie":        {"sid=1"},
				"Mcp-Tool":      {"status"},
				"Traceparent":   {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
				"Tracestate":    {"vendor=1"},
				"X-Request-Id":  {s.RequestID},
				"X-Service":     {"orders-agent"},
				"X-Tenant":      {"acme"},
			}
			if e == legacy {
				want["Mcp-Session-Id"] = s.Header["Mcp-Session-Id"]
				if len(want["Mcp-Session-Id"]) != 1 || want["Mcp-Session-Id"][0] == "" {
					t.Errorf("no Mcp-Session-Id: %v", s.Header)
				}
			}
			if diff := cmp.Diff(want, s.Header); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
			if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(s.RequestID) {
				t.Errorf("X-Request-Id %q", s.RequestID)
			}
			if s.Agent != "status" || s.Principal != "ada" || s.Host != "orders.internal" || s.RemoteAddr != "mcp" {
				t.Errorf("agent %q, principal %q, host %q, remote %q; want status, ada, orders.internal, mcp",
					s.Agent, s.Principal, s.Host, s.RemoteAddr)
			}
		})
	}
	t.Run("fixed headers without a caller's own", func(t *testing.T) {
		r := m.call(t, modern, "status", `{}`)
		var s seen
		_ = json.Unmarshal(r.Structured, &s)
		if got := s.Header["Authorization"]; !slices.Equal(got, []string{"Bearer service-token"}) {
			t.Errorf("Authorization %v, want the service token", got)
		}
	})
	t.Run("a fixed Accept replaces the default", func(t *testing.T) {
		m := newMCPServer(t)
		testBinding(m, service(nil), &route.Options{Header: http.Header{"accept": {"application/vnd.orders+json"}}})
		m.serve(t)
		var s seen
		_ = json.Unmarshal(m.call(t, modern, "status", `{}`).Structured, &s)
		if got := s.Header["Accept"]; !slices.Equal(got, []string{"application/vnd.orders+json"}) {
			t.Errorf("Accept %v", got)
		}
	})
	t.Run("each routed request has its own id", func(t *testing.T) {
		ids := map[string]bool{}
		for range 5 {
			var s seen
			_ = json.Unmarshal(m.call(t, modern, "status", `{}`).Structured, &s)
			ids[s.RequestID] = true
		}
		if len(ids) != 5 {
			t.Errorf("ids %v", slices.Collect(maps.Keys(ids)))
		}
	})
}

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

func TestHintsFollowTheMethodAndTheCatalogAnswers(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	b.Add(ferry.Tool{Name: "archive_order", Description: "Archives an order.", Additive: true,
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}, "DELETE /orders/{id}")
	b.Add(ferry.Tool{Name: "retry_note", Description: "Adds a note once.", Idempotent: true, Additive: true}, "POST /notes")
	m.serve(t)
	type hints struct{ ReadOnly, Destructive, Idempotent, Writes bool }
	want := map[string]hints{
		"get_order":     {ReadOnly: true, Idempotent: true},
		"cancel_order":  {Destructive: true, Writes: true},
		"replace_order": {Destructive: true, Idempotent: true, Writes: true},
		"delete_order":  {Destructive: true, Idempotent: true, Writes: true},
		"archive_order": {Idempotent: true, Writes: true},
		"retry_note":    {Idempotent: true, Writes: true},
	}
	cat := m.srv.Catalog()
	for name, w := range want {
		// An authorizer in front of the endpoint reads the tool a body names.
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
		names, err := ferry.ParseToolCalls([]byte(body))
		if err != nil || len(names) != 1 {
			t.Fatalf("ParseToolCalls: %v %v", names, err)
		}
		info, ok := cat.Lookup(names[0])
		if !ok {
			t.Fatalf("%s is not in the catalog", name)
		}
		got := hints{info.ReadOnly, info.Destructive, info.Idempotent, info.Writes()}
		if got != w {
			t.Errorf("%s: hints %+v, want %+v", name, got, w)
		}
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
