package ferry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// listenTasks opens a 2026-07-28 subscriptions/listen at url as user (empty:
// anonymous) with client capabilities caps, naming the tasks ids and
// asking for tool list changes as well.
func listenTasks(t *testing.T, url, user, caps string, ids ...string) *sseStream {
	t.Helper()
	list, _ := json.Marshal(ids)
	body := `{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"taskIds":` + string(list) +
		`},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	return openStream(t, "POST", url, "", body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", "X-User", user)
}

// notification is a notification as a listen stream carries it.
type notification struct {
	Method string                     `json:"method"`
	Params map[string]json.RawMessage `json:"params"`
}

func parseNote(t *testing.T, ev string) notification {
	t.Helper()
	var n notification
	if err := json.Unmarshal([]byte(ev), &n); err != nil {
		t.Fatalf("%s: %v", ev, err)
	}
	return n
}

// ackedTasks returns the task ids an acknowledgement lists.
func ackedTasks(t *testing.T, ev string) []string {
	t.Helper()
	n := parseNote(t, ev)
	if n.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("the listen's first event: %s", ev)
	}
	var p struct {
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	}
	_ = json.Unmarshal([]byte(ev), &struct {
		Params any `json:"params"`
	}{&p})
	return p.Notifications.TaskIDs
}

// gatedTask adds the tool "job" to srv, whose call returns {"n":3} once
// release is closed.
func gatedTask(srv *ferry.Server) (release chan struct{}) {
	release = make(chan struct{})
	type out struct {
		N int `json:"n"`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "job", Description: "A job.", ReadOnly: true, TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, _ struct{}) (out, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return out{}, ctx.Err()
			}
			return out{N: 3}, nil
		})
	return release
}

// A client that listens to its task hears it as it is (working), then
// completed, each notification the whole task exactly as tasks/get reads
// it, marked with the listen's id.
func TestTaskNotificationsFollowTheTask(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	release := gatedTask(srv)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c := &taskClient{t: t, h: h, user: "alice", caps: tasksCaps}
	id := str(c.call("job", `{}`).Result, "taskId")

	l := listenTasks(t, ts.URL, "alice", tasksCaps, id, id)
	if got := ackedTasks(t, l.next()); len(got) != 1 || got[0] != id {
		t.Fatalf("acknowledged %q, want [%s]", got, id)
	}
	check := func(want string) {
		t.Helper()
		n := parseNote(t, l.next())
		if n.Method != "notifications/tasks" || str(n.Params, "status") != want {
			t.Fatalf("got %s %v, want notifications/tasks %s", n.Method, n.Params, want)
		}
		if meta := string(n.Params["_meta"]); meta != `{"io.modelcontextprotocol/subscriptionId":"l1"}` {
			t.Errorf("the notification's _meta is %s", meta)
		}
		got := c.task("tasks/get", id, "").Result
		params := maps.Clone(n.Params)
		delete(params, "_meta")
		delete(got, "resultType")
		delete(got, "_meta")
		if !maps.EqualFunc(params, got, func(a, b json.RawMessage) bool { return string(a) == string(b) }) {
			t.Errorf("the notification carries %v, tasks/get reads %v", params, got)
		}
	}
	check("working")
	close(release)
	check("completed")
	// Nothing more of the task: the next event is a list change.
	srv.AddTool(ferry.Tool{Name: "late", Description: "Added late."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if n := parseNote(t, l.next()); n.Method != "notifications/tools/list_changed" {
		t.Errorf("after the completion: %s", n.Method)
	}
}

// Another caller's task and an unknown id are not acknowledged, and the
// listen hears nothing of them.
func TestTaskNotificationsOnlyOfOwnTasks(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	release := gatedTask(srv)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	alice := &taskClient{t: t, h: h, user: "alice", caps: tasksCaps}
	id := str(alice.call("job", `{}`).Result, "taskId")

	for _, user := range []string{"bob", ""} {
		l := listenTasks(t, ts.URL, user, tasksCaps, id, "no-such-task")
		if got := ackedTasks(t, l.next()); len(got) != 0 {
			t.Fatalf("%q's listen acknowledged %q", user, got)
		}
		defer func() {
			// The task's change comes before the list change, if at all.
			if n := parseNote(t, l.next()); n.Method != "notifications/tools/list_changed" {
				t.Errorf("%q heard %s %v of alice's task", user, n.Method, n.Params)
			}
		}()
	}
	close(release)
	alice.waitStatus(id, "completed")
	srv.AddTool(ferry.Tool{Name: "late", Description: "Added late."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
}

// A client that did not declare the extension and names tasks gets
// -32021 naming it; more tasks than MaxSubscriptions get -32602.
func TestTaskNotificationsNeedTheExtension(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	_ = gatedTask(srv)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	var a answer
	if err := json.Unmarshal([]byte(listenTasks(t, ts.URL, "alice", `{}`, "x").next()), &a); err != nil {
		t.Fatal(err)
	}
	if a.Error == nil || a.Error.Code != -32021 ||
		string(a.Error.Data) != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}` {
		t.Errorf("a listen to tasks without the extension answered %+v", a)
	}
	ids := strings.Split(strings.Repeat("x,", ferry.MaxSubscriptions+1), ",")[:ferry.MaxSubscriptions+1]
	a = answer{}
	if err := json.Unmarshal([]byte(listenTasks(t, ts.URL, "alice", tasksCaps, ids...).next()), &a); err != nil {
		t.Fatal(err)
	}
	if a.Error == nil || a.Error.Code != -32602 {
		t.Errorf("a listen to %d tasks answered %+v", len(ids), a)
	}
}

// On stdio, where the listen's watcher is made as the line is read, a
// listen to a task hears it too.
func TestTaskNotificationsOnStdio(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, Tasks: &ferry.TaskOptions{}})
	release := gatedTask(srv)
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &ferry.IOTransport{Reader: cr, Writer: sw}) }()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(sr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case l := <-lines:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line within 10s")
		}
		return ""
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}`
	go func() {
		_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"job","arguments":{},`+meta+`}}`+"\n")
	}()
	var created struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(next()), &created); err != nil {
		t.Fatal(err)
	}
	id := str(created.Result, "taskId")
	go func() {
		_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+id+`"]},`+meta+`}}`+"\n")
	}()
	if got := ackedTasks(t, next()); len(got) != 1 || got[0] != id {
		t.Fatalf("acknowledged %q", got)
	}
	for _, want := range []string{"working", "completed"} {
		n := parseNote(t, next())
		if n.Method != "notifications/tasks" || str(n.Params, "status") != want || str(n.Params, "taskId") != id {
			t.Fatalf("got %s %v, want the task %s", n.Method, n.Params, want)
		}
		if want == "working" {
			close(release)
		} else if string(n.Params["result"]) != `{"content":[{"type":"text","text":"{\"n\":3}"}],"structuredContent":{"n":3}}` {
			t.Errorf("the completed task's result: %s", n.Params["result"])
		}
	}
	cancel()
	cw.Close()
	go func() {
		for range lines {
		}
	}()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
}
