package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// BenchmarkTaskCall measures the tasks extension on one server, through
// the real HTTP handler in process, in the 2026-07-28 era: "plain" is a
// tools/call of a tool that supports tasks from a client that did not
// declare the extension (the call runs at once); "start" is the same call
// from a client that did, answered with a new task (the run goes on in the
// background and is not measured); "get" is a tasks/get of a completed
// task, which inlines the call's result. The memory store and the Redis
// one keep the tasks, side by side: "start" pays Redis a Lua script (the
// create under the caps) and "get" a GET, and each start's run pays the
// store again in the background (its settle), unmeasured but sharing the
// machine.
func BenchmarkTaskCall(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		benchTaskCall(b, ferry.NewMemoryTaskStore())
	})
	b.Run("redis", func(b *testing.B) {
		benchTaskCall(b, benchRedisStore(b).Tasks())
	})
}

func benchTaskCall(b *testing.B, store ferry.TaskStore) {
	srv := ferry.NewServer("bench", "1", &ferry.ServerOptions{Tasks: &ferry.TaskOptions{
		Store: store, TTL: time.Minute, MaxRunning: 1 << 30, MaxKept: 1 << 30}})
	srv.AddTool(ferry.Tool{Name: "add", Description: "Adds.", ReadOnly: true, TaskSupport: ferry.TaskOptional},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("3")), nil
		})
	h := ferry.NewHTTPHandler(srv, nil)
	message := func(method, caps, params string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`)
	}
	header := func(method, name string) http.Header {
		return http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
			"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}, "Mcp-Name": {name}}
	}
	const tasks = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	call := `"name":"add","arguments":{}`
	var created struct{ Result struct{ TaskID string } }
	first, _ := post(b, h, header("tools/call", "add"), message("tools/call", tasks, call))
	if err := json.Unmarshal(first, &created); err != nil || created.Result.TaskID == "" {
		b.Fatalf("no task: %s", first)
	}
	id := created.Result.TaskID
	for deadline := time.Now().Add(10 * time.Second); ; {
		got, _ := post(b, h, header("tasks/get", id), message("tasks/get", tasks, `"taskId":"`+id+`"`))
		if bytes.Contains(got, []byte(`"completed"`)) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the task did not complete: %s", got)
		}
		time.Sleep(time.Millisecond)
	}
	for _, c := range []struct {
		name, method, target, caps, params, want string
	}{
		{"plain", "tools/call", "add", "{}", call, `"resultType":"complete"`},
		{"start", "tools/call", "add", tasks, call, `"resultType":"task"`},
		{"get", "tasks/get", id, tasks, `"taskId":"` + id + `"`, `"status":"completed"`},
	} {
		b.Run(c.name, func(b *testing.B) {
			payload := message(c.method, c.caps, c.params)
			req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "http://localhost/mcp", nil)
			req.Header = header(c.method, c.target)
			req.ContentLength = int64(len(payload))
			var rb body
			w := &recorder{header: http.Header{}}
			serve := func() {
				w.reset()
				rb.Reset(payload)
				req.Body = &rb
				h.ServeHTTP(w, req)
			}
			serve()
			if w.code != http.StatusOK || !bytes.Contains(w.body.Bytes(), []byte(c.want)) {
				b.Fatalf("HTTP %d: %s", w.code, w.body.Bytes())
			}
			b.ReportAllocs()
			for b.Loop() {
				serve()
			}
		})
	}
}
