// Package exampletest serves an example's server over HTTP in its tests
// and calls its tools as a 2026-07-28 client does.
package exampletest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// Serve serves srv over HTTP for the length of t and returns its URL.
func Serve(t *testing.T, srv *ferry.Server) string {
	t.Helper()
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Call sends a modern tools/call of name with args (a JSON object) to url
// and returns the answer's body. A failed exchange is reported with
// t.Error, so Call may run on any goroutine.
func Call(t *testing.T, url, name, args string) string {
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
