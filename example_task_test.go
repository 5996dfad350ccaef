package ferry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A server that serves tasks runs a tool that supports them in the
// background for a client that declared the extension: the call answers
// at once with the task, and tasks/get reads its result when it is done.
func ExampleTaskOptions() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{TTL: time.Hour}})
	srv.AddTool(ferry.Tool{Name: "build_report", Description: "Builds the monthly report.", ReadOnly: true,
		TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("report ready")), nil
		})
	h := ferry.NewHTTPHandler(srv, nil)
	post := func(method, name, params string) (result struct {
		ResultType, TaskID, Status string
		Result                     struct{ Content []struct{ Text string } }
	},
	) {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+params+`,`+meta+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var msg struct{ Result json.RawMessage }
		_ = json.Unmarshal(w.Body.Bytes(), &msg)
		_ = json.Unmarshal(msg.Result, &result)
		return result
	}
	task := post("tools/call", "build_report", `"name":"build_report","arguments":{}`)
	fmt.Println(task.ResultType, task.Status)
	for {
		got := post("tasks/get", task.TaskID, `"taskId":"`+task.TaskID+`"`)
		if got.Status == "completed" {
			fmt.Println(got.Status, got.Result.Content[0].Text)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Output:
	// task working
	// completed report ready
}

// A task store keeps the tasks servers sharing it serve: here the memory
// store, used as a server uses it. A task belongs to its owner: another
// owner's Get finds nothing.
func ExampleNewMemoryTaskStore() {
	store := ferry.NewMemoryTaskStore()
	ctx := context.Background()
	now := time.Now()
	task := &ferry.TaskRecord{ID: "t1", Owner: "alice", Status: ferry.TaskWorking,
		Created: now, Updated: now, Expires: now.Add(time.Hour), Lease: now.Add(time.Minute)}
	if err := store.Create(ctx, task, ferry.TaskCaps{MaxRunning: 1, MaxKept: 10}); err != nil {
		fmt.Println(err)
	}
	err := store.Create(ctx, &ferry.TaskRecord{ID: "t2", Owner: "alice", Status: ferry.TaskWorking,
		Created: now, Updated: now, Expires: now.Add(time.Hour), Lease: now.Add(time.Minute)}, ferry.TaskCaps{MaxRunning: 1, MaxKept: 10})
	fmt.Println(errors.Is(err, ferry.ErrTooManyTasks))
	_ = store.Update(ctx, "alice", "t1", func(t *ferry.TaskRecord) error {
		t.Status, t.Result, t.Lease = ferry.TaskCompleted, json.RawMessage(`{"content":[]}`), time.Time{}
		return nil
	})
	got, _ := store.Get(ctx, "alice", "t1")
	fmt.Println(got.Status)
	_, err = store.Get(ctx, "bob", "t1")
	fmt.Println(errors.Is(err, ferry.ErrTaskNotFound))
	// Output:
	// true
	// completed
	// true
}
