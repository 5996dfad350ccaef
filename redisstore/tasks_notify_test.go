package redisstore

import (
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A subscriptions/listen on replica B hears of a task that runs on
// replica A: its status changes reach B through the Redis task store's
// signals, and the last notification is the task as tasks/get reads it.
func TestTaskNotificationsAcrossReplicas(t *testing.T) {
	t.Parallel()
	rs := newReplicas(t, 2, ferry.TaskOptions{Lease: time.Minute}, func(srv *ferry.Server) {
		srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks a name.", TaskSupport: ferry.TaskRequired},
			func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				r, err := ferry.Elicit(ferry.WithInputKey(ctx, "who"), &ferry.ElicitParams{Message: "Name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
				if err != nil {
					return nil, err
				}
				return ferry.NewResult(ferry.Text("hello " + r.Content["name"].(string))), nil
			})
	})
	a, b := rs[0], rs[1]
	id := a.start(t, "alice", "ask")
	b.waitStatus(t, "alice", id, "input_required", 10*time.Second)

	ts := httptest.NewServer(b.h)
	t.Cleanup(ts.Close)
	events := listenSSE(t, ts.URL, "alice", `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+id+`"]},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`)
	type note struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	next := func() note {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the listen ended")
			}
			var n note
			if err := json.Unmarshal([]byte(ev), &n); err != nil {
				t.Fatalf("%s: %v", ev, err)
			}
			return n
		case <-time.After(10 * time.Second):
			t.Fatal("no event within 10s")
		}
		return note{}
	}
	if ack := next(); ack.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack.Params["notifications"]), id) {
		t.Fatalf("the listen's first event: %s %s", ack.Method, ack.Params["notifications"])
	}
	status := func(n note) string {
		var s string
		_ = json.Unmarshal(n.Params["status"], &s)
		return s
	}
	if n := next(); n.Method != "notifications/tasks" || status(n) != "input_required" || n.Params["inputRequests"] == nil {
		t.Fatalf("the task as it is: %s %v", n.Method, n.Params)
	}
	if ack := b.task(t, "alice", "tasks/update", id, `,"inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}}`); ack.Error != nil {
		t.Fatalf("tasks/update on B: error %d", ack.Error.Code)
	}
	// Working (B's update) may be read already completed (A's); nothing
	// else comes, and completed comes.
	n := next()
	if status(n) == "working" {
		n = next()
	}
	if n.Method != "notifications/tasks" || status(n) != "completed" {
		t.Fatalf("after the answer: %s %v", n.Method, n.Params)
	}
	got := b.task(t, "alice", "tasks/get", id, "").Result
	delete(got, "resultType")
	delete(got, "_meta")
	delete(n.Params, "_meta")
	if !maps.EqualFunc(n.Params, got, func(x, y json.RawMessage) bool { return string(x) == string(y) }) {
		t.Errorf("the notification carries %v, tasks/get reads %v", n.Params, got)
	}
}

// listenSSE posts a 2026-07-28 subscriptions/listen body to url as user and
// returns the data of its events, until the test ends.
func listenSSE(t *testing.T, url, user, body string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "X-User": user} {
		req.Header.Set(k, v)
	}
	events := make(chan string, 16)
	go func() {
		defer close(events)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				select {
				case events <- data:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return events
}
