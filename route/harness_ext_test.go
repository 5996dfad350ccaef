package route_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// era is how a test speaks MCP to the server.
type era string

const (
	modern era = "2026-07-28" // no handshake; _meta and Mcp-Method/Mcp-Name headers
	legacy era = "2025-11-25" // initialize, then Mcp-Session-Id
)

var eras = []era{modern, legacy}

// mcpServer is a ferry server behind its real HTTP handler, with an
// authenticator in front (X-User sets the principal) and its logs kept.
// Tests call its tools through ferrytest's client, in either era.
type mcpServer struct {
	srv     *ferry.Server
	logs    *ferrytest.Buffer
	h       http.Handler
	clients map[era]*ferrytest.Client // one per era, for calls without extra headers
}

// newMCPServer returns a server whose logs are kept; add tools, then call
// serve.
func newMCPServer(t *testing.T) *mcpServer {
	t.Helper()
	logs := new(ferrytest.Buffer)
	srv := ferry.NewServer("route-test", "1.0.0", &ferry.ServerOptions{
		Logger:      logs.Logger(),
		SigningKeys: [][]byte{[]byte("route-test-key")},
		// One anonymous caller sends every test's calls, some hundreds at
		// once: the per-caller limits are the core's to test, not these.
		Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1},
	})
	return &mcpServer{srv: srv, logs: logs}
}

// serve builds the HTTP handler and connects a client in each era; it
// fails t when the server's start-up check fails.
func (m *mcpServer) serve(t *testing.T) {
	t.Helper()
	if err := m.srv.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	inner := ferry.NewHTTPHandler(m.srv, nil)
	m.h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: user}))
		}
		inner.ServeHTTP(w, r)
	})
	m.clients = map[era]*ferrytest.Client{}
	for _, e := range eras {
		m.clients[e] = ferrytest.DialHandler(t, m.h, &ferrytest.Options{Protocol: string(e)})
	}
}

// result is a tools/call's outcome as a client reads it.
type result struct {
	Text       string          // the text blocks, joined
	Structured json.RawMessage // structuredContent
	IsError    bool
	RPCError   string          // the protocol error, if the call failed with one
	Raw        json.RawMessage // the result as the server sent it
}

// call calls tool with args (a JSON object) in era e. Extra header pairs
// are sent with every request of a connection of their own, made on the
// caller's goroutine. Without them, it reports failures with t.Errorf, so
// it may run on any goroutine.
func (m *mcpServer) call(t *testing.T, e era, tool, args string, header ...string) result {
	t.Helper()
	return m.callContext(t.Context(), t, e, tool, args, header...)
}

// callContext is call with a context of the test's choosing: a call its
// context ends is not a failure.
func (m *mcpServer) callContext(ctx context.Context, t *testing.T, e era, tool, args string, header ...string) result {
	t.Helper()
	c := m.clients[e]
	if len(header) > 0 {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Add(header[i], header[i+1])
		}
		c = ferrytest.DialHandler(t, m.h, &ferrytest.Options{Protocol: string(e), Header: h})
	}
	// Call, not CallTool, so that the arguments go as the test wrote
	// them, null included.
	params := map[string]any{"name": tool, "arguments": json.RawMessage(args)}
	var raw json.RawMessage
	if err := c.Raw().Call(ctx, "tools/call", params, &raw); err != nil {
		if ctx.Err() == nil {
			t.Errorf("tools/call %s (%s): %v", tool, e, err) // not Fatal: calls may run on other goroutines
		}
		return result{RPCError: err.Error()}
	}
	var res struct {
		Content           []struct{ Text string }
		StructuredContent json.RawMessage
		IsError           bool
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Errorf("tools/call %s answered %s: %v", tool, raw, err)
		return result{}
	}
	r := result{Structured: res.StructuredContent, IsError: res.IsError, Raw: raw}
	for _, c := range res.Content {
		r.Text += c.Text
	}
	return r
}
