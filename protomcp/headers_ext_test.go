package protomcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
)

// TestTheCallerAndTheSessionReachTheService checks, in a legacy session,
// that the service's interceptor reads the MCP caller's principal from its
// context and the session's id from Mcp-Session-Id.
func TestTheCallerAndTheSessionReachTheService(t *testing.T) {
	s := testShop(t)
	type seen struct{ subject, session, tool string }
	got := make(chan seen, 1)
	interceptor := connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			var subject string
			if p, ok := ferry.PrincipalFromContext(ctx); ok {
				subject = p.Subject
			}
			got <- seen{subject, req.Header().Get("Mcp-Session-Id"), req.Header().Get("Mcp-Tool")}
			return next(ctx, req)
		}
	})
	srv := ferry.NewServer("s", "1", nil)
	if err := protomcp.AddService(srv, s.spec, protomcp.Handler(testservice.Handler(s.sd, nil, connect.WithInterceptors(interceptor))), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	inner := ferry.NewHTTPHandler(srv, nil)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { // an authenticator in front
		inner.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: "ada"})))
	})
	post := func(body string, header ...string) (*httptest.ResponseRecorder, string) {
		req := httptest.NewRequestWithContext(t.Context(), "POST", "/mcp", strings.NewReader(body))
		req.Host = "127.0.0.1"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		data, _ := io.ReadAll(w.Body)
		return w, string(data)
	}
	w, _ := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := w.Header().Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("no session: %d", w.Code)
	}
	_, data := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_item","arguments":{"sku":"BOOK-1"}}}`, "Mcp-Session-Id", sid)
	if !strings.Contains(data, `\"name\":\"Item BOOK-1\"`) {
		t.Fatalf("tools/call answered %s", data)
	}
	if g := <-got; g != (seen{"ada", sid, "get_item"}) {
		t.Errorf("the interceptor saw %+v, want the subject ada, the session %s and the tool get_item", g, sid)
	}
}

// TestTheServiceSeesTheMCPRequestsHost checks that middleware in front of
// the Connect handler sees the Host the MCP request came with.
func TestTheServiceSeesTheMCPRequestsHost(t *testing.T) {
	s := testShop(t)
	hosts := make(chan string, 1)
	api := testservice.Handler(s.sd, nil)
	mw := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts <- r.Host
		api.ServeHTTP(w, r)
	})
	m := newMCPServer()
	if err := protomcp.AddService(m.srv, s.spec, protomcp.Handler(mw), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	if r := m.call(t, "get_item", `{"sku":"BOOK-1"}`); r.IsError {
		t.Fatalf("got %+v", r)
	}
	if h := <-hosts; h != "localhost" { // ferrytest's in-memory requests go to http://localhost/mcp
		t.Errorf("the service saw the Host %q, want the MCP request's localhost", h)
	}
}

// TestCancellingTheCallCancelsTheServiceCall checks that the service's
// handler runs under the tool call's context.
func TestCancellingTheCallCancelsTheServiceCall(t *testing.T) {
	s := testShop(t)
	started, stopped := make(chan struct{}), make(chan error, 1)
	blocking := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		stopped <- r.Context().Err()
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	m := newMCPServer()
	if err := protomcp.AddService(m.srv, s.spec, protomcp.Handler(blocking), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = m.client.Raw().CallTool(ctx, "get_item", map[string]string{"sku": "BOOK-1"})
	}()
	<-started
	cancel()
	if err := <-stopped; err == nil {
		t.Error("the service's context was not cancelled")
	}
	<-done
}
