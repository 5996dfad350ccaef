package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// call sends a modern tools/call of name with args to url and returns the
// answer's body.
func call(t *testing.T, url, name, args string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return ""
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("%s: %d %s %v", name, resp.StatusCode, b, err)
	}
	return string(b)
}

// serveTest serves srv over HTTP for the length of t and returns its URL.
func serveTest(t *testing.T, srv *ferry.Server) string {
	t.Helper()
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Handlers run concurrently: searches and cancellations from many clients
// at once must not race on the orders (go test -race).
func TestToolsAreSafeForConcurrentCalls(t *testing.T) {
	shop := &Shop{orders: []Order{
		{ID: "A-1", Customer: "Ada Lovelace", Status: "open"},
		{ID: "A-2", Customer: "Alan Turing", Status: "shipped"},
	}}
	url := serveTest(t, newServer(shop, slog.New(slog.DiscardHandler)))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { call(t, url, "cancel_order", `{"id":"A-1"}`) })
		wg.Go(func() { call(t, url, "search_orders", `{"query":"a"}`) })
	}
	wg.Wait()
	if got := call(t, url, "search_orders", `{"query":"ada"}`); !strings.Contains(got, `"status":"cancelled"`) {
		t.Errorf("after the cancellations, search_orders answers %s", got)
	}
}
