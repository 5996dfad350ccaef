package wiretest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

func newHandler() http.Handler {
	srv := ferry.NewServer("wire", "1.0.0", nil)
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Says hello.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("hello")), nil
		})
	return ferry.NewHTTPHandler(srv, nil)
}

const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{},` + wiretest.Meta + `}}`

// Post and Serve send the same bytes, over the network and in process,
// and return what the server answered.
func TestPostAndServe(t *testing.T) {
	h := newHandler()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	for name, a := range map[string]wiretest.Answer{
		"Post":  wiretest.Post(t, ts.URL, call, wiretest.Modern("tools/call", "echo")...),
		"Serve": wiretest.Serve(t, h, call, wiretest.Modern("tools/call", "echo")...),
	} {
		if a.Status != http.StatusOK || !strings.Contains(a.Body, `"text":"hello"`) || a.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %v %s", name, a.Status, a.Header, a.Body)
		}
	}
}

// The header pairs reach the server, a Host pair as the request's Host:
// a name the server does not serve is refused.
func TestHeaderPairs(t *testing.T) {
	h := newHandler()
	if a := wiretest.Serve(t, h, call, wiretest.Modern("tools/call", "other")...); a.Status != http.StatusBadRequest {
		t.Errorf("an Mcp-Name the body does not name: %d %s", a.Status, a.Body)
	}
	if a := wiretest.Serve(t, h, call, append(wiretest.Modern("tools/call", "echo"), "Host", "evil.example")...); a.Status != http.StatusForbidden {
		t.Errorf("a Host not allowed: %d %s", a.Status, a.Body)
	}
}

// Initialize opens a legacy session whose id later posts carry.
func TestInitialize(t *testing.T) {
	ts := httptest.NewServer(newHandler())
	t.Cleanup(ts.Close)
	id := wiretest.Initialize(t, ts.URL)
	a := wiretest.Post(t, ts.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		"Mcp-Protocol-Version", "2025-11-25", "Mcp-Session-Id", id)
	if a.Status != http.StatusOK || !strings.Contains(a.Body, `"text":"hello"`) {
		t.Errorf("a call in the session: %d %s", a.Status, a.Body)
	}
}
