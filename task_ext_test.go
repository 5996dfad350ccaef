package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

// tasksCaps are client capabilities that declare the tasks extension.
const tasksCaps = `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

// taskClient posts 2026-07-28 requests to a handler, as one caller (the
// user header names it; empty is anonymous).
type taskClient struct {
	t    *testing.T
	h    http.Handler
	user string
	caps string
}

// answer is a JSON-RPC answer, its result or error.
type answer struct {
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	} `json:"error"`
}

func (c *taskClient) send(method, name, params string) answer {
	c.t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + c.caps + `}`
	if params != "" {
		meta += "," + params
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `}}`
	hd := append(wiretest.Modern(method, name), "X-User", c.user)
	a := wiretest.Serve(c.t, c.h, body, hd...)
	var got answer
	if err := json.Unmarshal([]byte(a.Body), &got); err != nil {
		c.t.Fatalf("%s: %d %s: %v", method, a.Status, a.Body, err)
	}
	return got
}

func (c *taskClient) call(tool, args string) answer {
	c.t.Helper()
	return c.send("tools/call", tool, `"name":"`+tool+`","arguments":`+args)
}

func (c *taskClient) task(method, id, extra string) answer {
	c.t.Helper()
	return c.send(method, id, `"taskId":"`+id+`"`+extra)
}

func str(m map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(m[k], &s)
	return s
}

// waitStatus polls tasks/get until the task has status want, or fails.
func (c *taskClient) waitStatus(id, want string) answer {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := c.task("tasks/get", id, "")
		if a.Error != nil {
			c.t.Fatalf("tasks/get %s: error %d", id, a.Error.Code)
		}
		if got := str(a.Result, "status"); got == want {
			return a
		} else if time.Now().After(deadline) {
			c.t.Fatalf("task %s is %q after 10s, want %q", id, got, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// newTaskServer returns a handler serving tasks, whose requests carry the
// principal their X-User header names.
func newTaskServer(t *testing.T, opts *ferry.TaskOptions) (*ferry.Server, http.Handler) {
	t.Helper()
	srv := ferry.NewServer("tasks", "1", &ferry.ServerOptions{Tasks: opts})
	h := ferry.NewHTTPHandler(srv, nil)
	return srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-User"); u != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Issuer: "test", Subject: u}))
		}
		h.ServeHTTP(w, r)
	})
}

// A task-augmented call answers at once with the task; the handler runs on
// after the request ended; tasks/get reads the result exactly as the plain
// call reads it.
func TestTaskRunsAfterItsRequestAndReadsAsThePlainCall(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	release := make(chan struct{})
	type out struct {
		N int `json:"n"`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "count", Description: "Counts.", ReadOnly: true, TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, _ struct{}) (out, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return out{}, ctx.Err()
			}
			return out{N: 3}, nil
		})
	c := &taskClient{t: t, h: h, caps: tasksCaps}
	created := c.call("count", `{}`)
	if created.Error != nil || str(created.Result, "resultType") != "task" || str(created.Result, "status") != "working" {
		t.Fatalf("the call answered %+v, want a working task", created)
	}
	for _, k := range []string{"taskId", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} {
		if created.Result[k] == nil {
			t.Errorf("the task has no %s", k)
		}
	}
	id := str(created.Result, "taskId")
	if len(id) < 22 {
		t.Errorf("task id %q is shorter than 128 random bits", id)
	}
	if got := c.task("tasks/get", id, ""); str(got.Result, "status") != "working" || got.Result["result"] != nil {
		t.Errorf("a running task reads %v", got.Result)
	}
	close(release)
	done := c.waitStatus(id, "completed")

	plain := (&taskClient{t: t, h: h, caps: `{}`}).call("count", `{}`)
	if str(plain.Result, "resultType") != "complete" {
		t.Fatalf("the plain call of an optional task tool answered %v", plain.Result)
	}
	var inlined map[string]json.RawMessage
	if err := json.Unmarshal(done.Result["result"], &inlined); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"content", "structuredContent"} {
		if string(inlined[k]) != string(plain.Result[k]) {
			t.Errorf("the task's %s is %s, the plain call's %s", k, inlined[k], plain.Result[k])
		}
	}
}

// A required-task tool called by a client without the extension gets
// -32021 naming it; tasks/* from such a client get -32021 too.
func TestTaskRequiredNeedsTheExtension(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	srv.AddTool(ferry.Tool{Name: "job", Description: "A job.", TaskSupport: ferry.TaskRequired},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	c := &taskClient{t: t, h: h, caps: `{}`}
	a := c.call("job", `{}`)
	if a.Error == nil || a.Error.Code != -32021 || !strings.Contains(string(a.Error.Data), `"io.modelcontextprotocol/tasks"`) {
		t.Errorf("a required task tool without the extension answered %+v", a)
	}
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if a := c.task(m, "x", ""); a.Error == nil || a.Error.Code != -32021 {
			t.Errorf("%s without the extension answered %+v, want -32021", m, a)
		}
	}
	if err := ferry.NewServer("s", "1", nil).Check(); err != nil {
		t.Fatal(err)
	}
	plain := ferry.NewServer("s", "1", nil)
	plain.AddTool(ferry.Tool{Name: "job", Description: "A job.", TaskSupport: ferry.TaskRequired},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if err := plain.Check(); err == nil || !strings.Contains(err.Error(), "ServerOptions.Tasks") {
		t.Errorf("a required task tool on a server without tasks checks as %v", err)
	}
}

// On a server that does not serve tasks, the methods do not exist and
// nothing is declared.
func TestTaskMethodsDoNotExistWithoutTheOption(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "T.", TaskSupport: ferry.TaskOptional},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("ok")), nil
		})
	c := &taskClient{t: t, h: ferry.NewHTTPHandler(srv, nil), caps: tasksCaps}
	if a := c.send("tasks/get", "", `"taskId":"x"`); a.Error == nil || a.Error.Code != -32601 {
		t.Errorf("tasks/get answered %+v, want -32601", a)
	}
	if a := c.call("t", `{}`); str(a.Result, "resultType") != "complete" {
		t.Errorf("an optional task tool on a server without tasks answered %v", a.Result)
	}
	if srv.Serves(ferry.ExtensionTasks) {
		t.Error("the server serves tasks without the option")
	}
}

// tasks/cancel cancels the handler's context and the task reads
// cancelled, whatever the handler returns; a second cancel is acked.
func TestTaskCancelEndsTheHandler(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	ended := make(chan error, 1)
	srv.AddTool(ferry.Tool{Name: "wait", Description: "Waits.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-ctx.Done()
			ended <- ctx.Err()
			return ferry.NewResult(ferry.Text("late")), nil
		})
	c := &taskClient{t: t, h: h, caps: tasksCaps}
	id := str(c.call("wait", `{}`).Result, "taskId")
	for range 2 {
		a := c.task("tasks/cancel", id, "")
		if a.Error != nil || str(a.Result, "resultType") != "complete" || a.Result["taskId"] != nil || a.Result["status"] != nil {
			t.Errorf("tasks/cancel answered %+v, want an empty ack", a)
		}
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the handler's context ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled")
	}
	c.waitStatus(id, "cancelled")
	if a := c.task("tasks/cancel", "no-such-task", ""); a.Error == nil || a.Error.Code != -32602 {
		t.Errorf("cancelling an unknown task answered %+v, want -32602", a)
	}
}

// A handler that elicits inside a task parks it in input_required with
// the question; tasks/update answers it and the task completes with the
// answer.
func TestTaskElicitsThroughUpdate(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks a name.", TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := ferry.Elicit(ferry.WithInputKey(ctx, "who"), &ferry.ElicitParams{Message: "Name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return ferry.NewResult(ferry.Text("hello " + r.Content["name"].(string))), nil
		})
	c := &taskClient{t: t, h: h, caps: tasksCaps}
	id := str(c.call("ask", `{}`).Result, "taskId")
	parked := c.waitStatus(id, "input_required")
	var requests map[string]struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(parked.Result["inputRequests"], &requests); err != nil || requests["who"].Method != "elicitation/create" {
		t.Fatalf("the parked task asks %s (%v)", parked.Result["inputRequests"], err)
	}
	ack := c.task("tasks/update", id, `,"inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}},"stray":{}}`)
	if ack.Error != nil || str(ack.Result, "resultType") != "complete" || ack.Result["status"] != nil {
		t.Fatalf("tasks/update answered %+v", ack)
	}
	done := c.waitStatus(id, "completed")
	if !strings.Contains(string(done.Result["result"]), "hello Ada") {
		t.Errorf("the task's result is %s", done.Result["result"])
	}
}

// A task belongs to its caller: another caller gets what an unknown id
// gets, for every method.
func TestTaskIsInvisibleToAnotherCaller(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	srv.AddTool(ferry.Tool{Name: "t", Description: "T.", TaskSupport: ferry.TaskRequired},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("ok")), nil
		})
	alice := &taskClient{t: t, h: h, user: "alice", caps: tasksCaps}
	id := str(alice.call("t", `{}`).Result, "taskId")
	alice.waitStatus(id, "completed")
	for _, other := range []*taskClient{{t: t, h: h, user: "bob", caps: tasksCaps}, {t: t, h: h, caps: tasksCaps}} {
		for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			if a := other.task(m, id, ""); a.Error == nil || a.Error.Code != -32602 {
				t.Errorf("%s of alice's task by %q answered %+v, want -32602", m, other.user, a)
			}
		}
	}
}

// The per-caller caps bound the tasks running and kept; the TTL bounds how
// long a task is kept.
func TestTaskCapsAndTTL(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{MaxRunning: 1, MaxKept: 2, TTL: 300 * time.Millisecond})
	release := make(chan struct{})
	srv.AddTool(ferry.Tool{Name: "t", Description: "T.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-release
			return ferry.NewResult(ferry.Text("ok")), nil
		})
	alice := &taskClient{t: t, h: h, user: "alice", caps: tasksCaps}
	first := str(alice.call("t", `{}`).Result, "taskId")
	if a := alice.call("t", `{}`); !strings.Contains(string(a.Result["isError"]), "true") {
		t.Errorf("a second running task answered %v, want a refusal", a.Result)
	}
	bob := &taskClient{t: t, h: h, user: "bob", caps: tasksCaps}
	if a := bob.call("t", `{}`); str(a.Result, "resultType") != "task" {
		t.Errorf("another caller's task was refused: %v", a.Result)
	}
	close(release)
	alice.waitStatus(first, "completed")
	second := str(alice.call("t", `{}`).Result, "taskId")
	alice.waitStatus(second, "completed")
	if a := alice.call("t", `{}`); !strings.Contains(string(a.Result["isError"]), "true") {
		t.Errorf("a third kept task answered %v, want a refusal", a.Result)
	}
	deadline := time.Now().Add(10 * time.Second)
	for alice.task("tasks/get", first, "").Error == nil {
		if time.Now().After(deadline) {
			t.Fatal("the task outlived its TTL by 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if a := alice.call("t", `{}`); str(a.Result, "resultType") != "task" {
		t.Errorf("after the TTL, a new task was refused: %v", a.Result)
	}
}

// A tool that asks before its task starts asks as a plain call
// (input_required, no task), and the retry that answers becomes the task,
// whose result reads the answer.
func TestTaskAskBeforeTaskAsksThenStarts(t *testing.T) {
	srv, h := newTaskServer(t, &ferry.TaskOptions{})
	srv.AddTool(ferry.Tool{Name: "greet", Description: "Greets.", TaskSupport: ferry.TaskRequired, AskBeforeTask: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := ferry.Elicit(ferry.WithInputKey(ctx, "who"), &ferry.ElicitParams{Message: "Name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return ferry.NewResult(ferry.Text("hello " + r.Content["name"].(string))), nil
		})
	c := &taskClient{t: t, h: h, caps: tasksCaps}
	first := c.call("greet", `{}`)
	if str(first.Result, "resultType") != "input_required" || first.Result["taskId"] != nil {
		t.Fatalf("the first round answered %v, want input_required without a task", first.Result)
	}
	second := c.send("tools/call", "greet", `"name":"greet","arguments":{},"inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}},"requestState":`+
		string(first.Result["requestState"]))
	if str(second.Result, "resultType") != "task" || second.Result["requestState"] != nil || second.Result["inputRequests"] != nil {
		t.Fatalf("the retry answered %v, want a task", second.Result)
	}
	done := c.waitStatus(str(second.Result, "taskId"), "completed")
	if !strings.Contains(string(done.Result["result"]), "hello Ada") {
		t.Errorf("the task's result is %s", done.Result["result"])
	}
}

// A shutdown gives a running task the drain's deadline, then cancels it
// and marks it so; a task that ends within the deadline completes.
func TestTaskShutdownCancelsWhatOutlivesTheDrain(t *testing.T) {
	srv := ferry.NewServer("tasks", "1", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{}})
	srv.AddTool(ferry.Tool{Name: "forever", Description: "Never ends.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-ctx.Done()
			return ferry.NewResult(ferry.Text("stopped")), nil
		})
	served := ferry.NewHTTPHandler(srv, nil)
	id := str((&taskClient{t: t, h: served, caps: tasksCaps}).call("forever", `{}`).Result, "taskId")
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := served.Shutdown(ctx); err == nil {
		t.Error("the shutdown ended before the running task did")
	}
	// Another handler of the same server reads the task.
	c := &taskClient{t: t, h: ferry.NewHTTPHandler(srv, nil), caps: tasksCaps}
	got := c.waitStatus(id, "cancelled")
	if !strings.Contains(str(got.Result, "statusMessage"), "shut down") {
		t.Errorf("the cancelled task says %q", str(got.Result, "statusMessage"))
	}
}

// The observer sees a task-augmented call as the call it is: its End comes
// when the task ends (not when the task is created), with the task's
// result, inside the span Start began (the handler runs in it too); the
// call log records the run once it ended.
func TestTaskIsObservedUntilItEnds(t *testing.T) {
	obs := &recorder{}
	srv, logs := newLogged(t, &ferry.ServerOptions{Observer: obs, Tasks: &ferry.TaskOptions{}})
	release := make(chan struct{})
	srv.AddTool(ferry.Tool{Name: "slow", Description: "Waits.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-release
			span, _ := ctx.Value(obsKey{}).(string)
			return ferry.NewResult(ferry.Text("ran in " + span)), nil
		})
	srv.AddTool(ferry.Tool{Name: "broken", Description: "Fails.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return nil, ferry.Refuse(ferry.RefusalNotFound, "no such order")
		})
	c := &taskClient{t: t, h: ferry.NewHTTPHandler(srv, nil), caps: tasksCaps}
	id := str(c.call("slow", `{}`).Result, "taskId")
	time.Sleep(50 * time.Millisecond)
	obs.mu.Lock()
	ended := len(obs.seen)
	obs.mu.Unlock()
	if ended != 0 {
		t.Fatalf("the call was observed as ended while its task ran: %+v", obs.seen)
	}
	if n := len(logs.records(t, "tool call")); n != 0 {
		t.Errorf("the call log has %d records while the task runs", n)
	}
	close(release)
	c.waitStatus(id, "completed")
	var got observed
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		obs.mu.Lock()
		for _, s := range obs.seen {
			if s.info.Method == "tools/call" {
				got = s
			}
		}
		obs.mu.Unlock()
		if got.info.Method != "" || time.Now().After(deadline) {
			break
		}
	}
	if got.end.Task != ferry.TaskCompleted || got.info.Name != "slow" || got.end.Duration < 50*time.Millisecond ||
		!strings.Contains(string(got.end.Result), "ran in span of tools/call") || got.ctx != "span of tools/call" {
		t.Errorf("the task's call was observed as %+v (result %s)", got, got.end.Result)
	}
	recs := logs.records(t, "tool call")
	if len(recs) != 1 || recs[0]["tool"] != "slow" || recs[0]["outcome"] != "ok" {
		t.Errorf("the call log has %v, want one ok record of slow", recs)
	}

	c.waitStatus(str(c.call("broken", `{}`).Result, "taskId"), "completed")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var last observed
		obs.mu.Lock()
		for _, s := range obs.seen {
			if s.info.Method == "tools/call" && s.info.Name == "broken" {
				last = s
			}
		}
		obs.mu.Unlock()
		if last.info.Name == "broken" {
			if last.end.Task != ferry.TaskCompleted || !last.end.ToolError {
				t.Errorf("a task whose tool failed was observed as %+v", last.end)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the failed tool's task was not observed")
		}
	}
}

// A task runs under its own bound, TaskOptions.Timeout, not the server's
// CallTimeout, which it outlives; past its own bound, its context ends.
func TestTaskHasItsOwnTimeout(t *testing.T) {
	srv := ferry.NewServer("tasks", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: 20 * time.Millisecond},
		Tasks: &ferry.TaskOptions{Timeout: time.Second}})
	srv.AddTool(ferry.Tool{Name: "slow", Description: "Outlives the call timeout.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			select {
			case <-time.After(200 * time.Millisecond):
				return ferry.NewResult(ferry.Text("done")), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	srv.AddTool(ferry.Tool{Name: "forever", Description: "Outlives the task's bound.", TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-ctx.Done()
			d, _ := ctx.Deadline()
			return nil, fmt.Errorf("stopped: deadline %v away at the start", time.Until(d))
		})
	c := &taskClient{t: t, h: ferry.NewHTTPHandler(srv, nil), caps: tasksCaps}
	done := c.waitStatus(str(c.call("slow", `{}`).Result, "taskId"), "completed")
	if !strings.Contains(string(done.Result["result"]), `"done"`) {
		t.Errorf("a task past the server's CallTimeout read %s", done.Result["result"])
	}
	start := time.Now()
	id := str(c.call("forever", `{}`).Result, "taskId")
	ended := c.waitStatus(id, "completed")
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("the task's context ended after %v, before its bound of 1s", took)
	}
	if !strings.Contains(string(ended.Result["result"]), `"isError":true`) {
		t.Errorf("a task past its bound read %s", ended.Result["result"])
	}
}
