package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// unresponsiveServer is a legacy MCP endpoint that answers initialize and
// its notification, then nothing: tools/list, tools/call, the
// notifications/cancelled giving them up and the DELETE ending the
// session all wait until the test ends.
func unresponsiveServer(t *testing.T) string {
	t.Helper()
	gone := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m)
		switch {
		case r.Method == http.MethodPost && m.Method == "server/discover":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
		case r.Method == http.MethodPost && m.Method == "initialize":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s-1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"slow","version":"1"}}}`, m.ID)
		case r.Method == http.MethodPost && m.Method == "notifications/initialized":
			w.WriteHeader(http.StatusAccepted)
		default:
			select {
			case <-gone:
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(func() { close(gone); ts.Close() })
	return ts.URL + "/mcp"
}

// The whole command ends within -timeout plus closeGrace, however long
// the server takes to hear that ferry gave up and ends the session: it
// used to wait 2s more for the notifications/cancelled and 5s for the
// DELETE.
func TestTimeoutBoundsTheWholeCommand(t *testing.T) {
	url := unresponsiveServer(t)
	for _, args := range [][]string{
		{"tools", url},
		{"call", url, "get_order", `{"id": 7}`},
		{"lint", url},
	} {
		t.Run(args[0], func(t *testing.T) {
			start := time.Now()
			code, stdout, stderr := runFerry(t, append([]string{args[0], "-quiet", "-timeout", "1s"}, args[1:]...))
			// Generous, against a busy machine: the bound is 1s + closeGrace.
			if d := time.Since(start); d > time.Second+closeGrace+2*time.Second {
				t.Errorf("took %v with -timeout 1s", d)
			}
			if code != exitProtocol || stdout != "" || !strings.HasSuffix(stderr, ": no answer within 1s; raise -timeout if the server is slow\n") {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}
