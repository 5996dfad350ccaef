package redisstore

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

// replica is one server of a service, with a handler whose requests carry
// the principal their X-User header names, and its own Redis client.
type replica struct {
	srv   *ferry.Server
	h     http.Handler
	store *Store
}

// newReplicas returns n replicas sharing one Redis prefix, each with its
// own client, serving the tools add adds.
func newReplicas(t *testing.T, n int, opts ferry.TaskOptions, add func(*ferry.Server)) []*replica {
	t.Helper()
	prefix := testPrefix(t, testClient(t))
	rs := make([]*replica, n)
	for i := range rs {
		st := New(testClient(t), &Options{Prefix: prefix})
		t.Cleanup(func() { _ = st.Close() })
		o := opts
		o.Store = st.Tasks()
		srv := ferry.NewServer("tasks", "1", &ferry.ServerOptions{Tasks: &o})
		add(srv)
		h := ferry.NewHTTPHandler(srv, nil)
		rs[i] = &replica{srv: srv, store: st, h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.Header.Get("X-User"); u != "" {
				r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Issuer: "test", Subject: u}))
			}
			h.ServeHTTP(w, r)
		})}
	}
	return rs
}

// taskAnswer is a JSON-RPC answer, its result or error.
type taskAnswer struct {
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func (a taskAnswer) str(k string) string {
	var s string
	_ = json.Unmarshal(a.Result[k], &s)
	return s
}

// send posts a 2026-07-28 request declaring the tasks extension to r, as
// user (empty: anonymous).
func (r *replica) send(t *testing.T, user, method, name, params string) taskAnswer {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}},` + params + `}}`
	a := wiretest.Serve(t, r.h, body, append(wiretest.Modern(method, name), "X-User", user)...)
	var got taskAnswer
	if err := json.Unmarshal([]byte(a.Body), &got); err != nil {
		t.Fatalf("%s: %d %s: %v", method, a.Status, a.Body, err)
	}
	return got
}

func (r *replica) start(t *testing.T, user, tool string) string {
	t.Helper()
	a := r.send(t, user, "tools/call", tool, `"name":"`+tool+`","arguments":{}`)
	if a.str("resultType") != "task" {
		t.Fatalf("tools/call %s answered %v %+v, want a task", tool, a.Result, a.Error)
	}
	return a.str("taskId")
}

func (r *replica) task(t *testing.T, user, method, id, extra string) taskAnswer {
	t.Helper()
	return r.send(t, user, method, id, `"taskId":"`+id+`"`+extra)
}

// waitStatus polls tasks/get on r until the task reads want, for at most
// within.
func (r *replica) waitStatus(t *testing.T, user, id, want string, within time.Duration) taskAnswer {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		a := r.task(t, user, "tasks/get", id, "")
		if a.Error != nil {
			t.Fatalf("tasks/get %s: error %d", id, a.Error.Code)
		}
		if got := a.str("status"); got == want {
			return a
		} else if time.Now().After(deadline) {
			t.Fatalf("task %s reads %q after %v, want %q", id, got, within, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A task started through replica A is polled, answered and read through
// replica B: B's tasks/update wakes the handler waiting on A.
func TestTasksAcrossReplicasElicitAndComplete(t *testing.T) {
	t.Parallel()
	rs := newReplicas(t, 2, ferry.TaskOptions{Lease: time.Minute}, func(srv *ferry.Server) {
		srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks a name.", TaskSupport: ferry.TaskRequired},
			func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				r, err := ferry.Elicit(ferry.WithInputKey(ctx, "who"), &ferry.ElicitParams{Message: "Name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
				if err != nil {
					return nil, err
				}
				return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("hello " + r.Content["name"].(string))},
					StructuredContent: map[string]any{"name": r.Content["name"]}}, nil
			})
	})
	a, b := rs[0], rs[1]
	id := a.start(t, "alice", "ask")
	parked := b.waitStatus(t, "alice", id, "input_required", 10*time.Second)
	if !strings.Contains(string(parked.Result["inputRequests"]), "elicitation/create") {
		t.Fatalf("B reads the parked task asking %s", parked.Result["inputRequests"])
	}
	if ack := b.task(t, "alice", "tasks/update", id, `,"inputResponses":{"who":{"action":"accept","content":{"name":"Ada"}}}`); ack.Error != nil {
		t.Fatalf("tasks/update on B: error %d", ack.Error.Code)
	}
	// The lease is a minute: only B's signal can wake A's run this soon.
	done := b.waitStatus(t, "alice", id, "completed", 10*time.Second)
	var result struct {
		Content           []struct{ Text string }
		StructuredContent map[string]string
		IsError           bool
	}
	if err := json.Unmarshal(done.Result["result"], &result); err != nil || result.Content[0].Text != "hello Ada" ||
		result.StructuredContent["name"] != "Ada" || result.IsError {
		t.Errorf("B reads the result %s (%v)", done.Result["result"], err)
	}
	if got := a.waitStatus(t, "alice", id, "completed", time.Second); string(got.Result["result"]) != string(done.Result["result"]) {
		t.Errorf("A reads %s, B %s", got.Result["result"], done.Result["result"])
	}
}

// tasks/cancel through B cancels the handler's context on A, by Redis's
// signal (the lease, and so the polling, is a minute).
func TestTasksAcrossReplicasCancel(t *testing.T) {
	t.Parallel()
	stopped := make(chan struct{})
	rs := newReplicas(t, 2, ferry.TaskOptions{Lease: time.Minute}, func(srv *ferry.Server) {
		srv.AddTool(ferry.Tool{Name: "forever", Description: "Runs until cancelled.", TaskSupport: ferry.TaskRequired},
			func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				<-ctx.Done()
				close(stopped)
				return ferry.NewResult(ferry.Text("stopped")), nil
			})
	})
	a, b := rs[0], rs[1]
	id := a.start(t, "alice", "forever")
	b.waitStatus(t, "alice", id, "working", time.Second)
	if ack := b.task(t, "alice", "tasks/cancel", id, ""); ack.Error != nil {
		t.Fatalf("tasks/cancel on B: error %d", ack.Error.Code)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler on A still runs 10s after B cancelled its task")
	}
	// The cancelled task stays cancelled, whatever the handler returned.
	time.Sleep(50 * time.Millisecond)
	a.waitStatus(t, "alice", id, "cancelled", time.Second)
	b.waitStatus(t, "alice", id, "cancelled", time.Second)
}

// A replica that dies while a task runs (here: its Redis client closed,
// so that it renews no lease, as a killed process would) leaves the task
// failed on B once the lease has passed, never working for ever.
func TestTasksOfADeadReplicaFail(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	const lease = 600 * time.Millisecond
	rs := newReplicas(t, 2, ferry.TaskOptions{Lease: lease}, func(srv *ferry.Server) {
		srv.AddTool(ferry.Tool{Name: "hang", Description: "Hangs.", TaskSupport: ferry.TaskRequired},
			func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				<-release
				return ferry.NewResult(ferry.Text("late")), nil
			})
	})
	a, b := rs[0], rs[1]
	id := a.start(t, "alice", "hang")
	// While A lives, it renews the lease: the task works past it.
	time.Sleep(2 * lease)
	if got := b.task(t, "alice", "tasks/get", id, ""); got.str("status") != "working" {
		t.Fatalf("while A lives, B reads the task %q, want working", got.str("status"))
	}
	_ = a.store.c.Close() // A is gone: it renews nothing
	start := time.Now()
	failed := b.waitStatus(t, "alice", id, "failed", 10*time.Second)
	if took := time.Since(start); took > lease+5*time.Second {
		t.Errorf("the task read failed %v after A died, lease %v", took, lease)
	}
	if !strings.Contains(failed.str("statusMessage"), "stopped") {
		t.Errorf("the failed task says %q", failed.str("statusMessage"))
	}
}

// A task of one caller is invisible to another on every replica, and the
// per-caller caps and the TTL hold across replicas.
func TestTasksAcrossReplicasOwnersCapsAndTTL(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rs := newReplicas(t, 2, ferry.TaskOptions{MaxRunning: 1, MaxKept: 2, TTL: time.Second}, func(srv *ferry.Server) {
		srv.AddTool(ferry.Tool{Name: "t", Description: "Waits.", TaskSupport: ferry.TaskRequired},
			func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				select {
				case <-release:
				case <-ctx.Done():
				}
				return ferry.NewResult(ferry.Text("ok")), nil
			})
	})
	a, b := rs[0], rs[1]
	first := a.start(t, "alice", "t")
	for _, r := range rs {
		for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
			if got := r.task(t, "bob", m, first, ""); got.Error == nil || got.Error.Code != -32602 {
				t.Errorf("%s of alice's task by bob answered %+v, want -32602", m, got)
			}
		}
	}
	if got := b.send(t, "alice", "tools/call", "t", `"name":"t","arguments":{}`); !strings.Contains(string(got.Result["isError"]), "true") {
		t.Errorf("alice's second running task, on B, answered %v, want a refusal", got.Result)
	}
	bobs := b.start(t, "bob", "t")
	close(release)
	b.waitStatus(t, "alice", first, "completed", 10*time.Second)
	b.waitStatus(t, "bob", bobs, "completed", 10*time.Second)
	second := b.start(t, "alice", "t")
	a.waitStatus(t, "alice", second, "completed", 10*time.Second)
	if got := a.send(t, "alice", "tools/call", "t", `"name":"t","arguments":{}`); !strings.Contains(string(got.Result["isError"]), "true") {
		t.Errorf("alice's third kept task answered %v, want a refusal", got.Result)
	}
	deadline := time.Now().Add(10 * time.Second)
	for a.task(t, "alice", "tasks/get", first, "").Error == nil {
		if time.Now().After(deadline) {
			t.Fatal("the task outlived its TTL of 1s by 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.start(t, "alice", "t") // room again
}

// The Redis task store plugs into readiness: /readyz names it "task store
// (redis)" and fails while Redis does not answer.
func TestTaskStoreIsCheckedForReadiness(t *testing.T) {
	t.Parallel()
	rs := newReplicas(t, 1, ferry.TaskOptions{}, func(*ferry.Server) {})
	h := ferry.NewHealthHandler(&ferry.HealthOptions{CacheFor: -1, Handlers: []*ferry.HTTPHandler{ferry.NewHTTPHandler(rs[0].srv, nil)}})
	probe := func() (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return w.Code, w.Body.String()
	}
	if code, body := probe(); code != http.StatusOK || !strings.Contains(body, `"task store (redis)"`) {
		t.Fatalf("with Redis up: %d %s", code, body)
	}
	_ = rs[0].store.c.Close()
	if code, body := probe(); code != http.StatusServiceUnavailable || !strings.Contains(body, `"task store (redis)","ok":false`) {
		t.Errorf("with Redis gone: %d %s", code, body)
	}
}
