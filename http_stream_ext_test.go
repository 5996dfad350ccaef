package ferry_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A subscriptions/listen stream sets its own deadline for each
// notification, so an http.Server's WriteTimeout does not cut it: a
// change made after the timeout still reaches the client.
func TestListenStreamOutlivesTheServersWriteTimeout(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	ts := httptest.NewUnstartedServer(ferry.NewHTTPHandler(srv, nil))
	const writeTimeout = 200 * time.Millisecond
	ts.Config.WriteTimeout = writeTimeout
	ts.Start()
	defer ts.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	next := func(want string) {
		t.Helper()
		for events.Scan() {
			if strings.Contains(events.Text(), want) {
				return
			}
		}
		t.Fatalf("the stream ended before %s: %v", want, events.Err())
	}
	next("notifications/subscriptions/acknowledged")

	time.Sleep(2 * writeTimeout)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{}, nil
	})
	next("notifications/tools/list_changed")
}
