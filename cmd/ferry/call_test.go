package main

import (
	"context"
	"log/slog"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

func TestCall(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for era, target := range eras(t, url) {
		t.Run(era, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, withTarget("call", target, "get_order", `{"id": 7}`))
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var got struct {
				StructuredContent order `json:"structuredContent"`
				IsError           bool  `json:"isError"`
			}
			decodeStdout(t, stdout, &got)
			if got.StructuredContent != (order{ID: 7, Status: "shipped"}) || got.IsError {
				t.Errorf("result %+v", got)
			}
		})
	}
}

// A tool's error result is printed on stdout and exits 1, with one line
// on stderr.
func TestCallErrorResult(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	code, stdout, stderr := runFerry(t, []string{"call", url, "get_order", `{"id": 500}`})
	if code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	var got struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	decodeStdout(t, stdout, &got)
	if !got.IsError || len(got.Content) != 1 || !strings.Contains(got.Content[0].Text, "no order 500") {
		t.Errorf("result %+v", got)
	}
	if stderr != "ferry: call: the tool get_order returned an error result (printed on stdout)\n" {
		t.Errorf("stderr %q", stderr)
	}
}

// Arguments come from stdin with "-", in either position of the flags.
func TestCallStdinArguments(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	code, stdout, stderr := runFerryIn(t, "{\n  \"id\": 42\n}\n", []string{"call", url, "get_order", "-", "-timeout", "10s"})
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var got struct {
		StructuredContent order `json:"structuredContent"`
	}
	decodeStdout(t, stdout, &got)
	if got.StructuredContent.ID != 42 {
		t.Errorf("result %+v, want order 42", got)
	}
	// Over stdio the arguments, spread over lines, still make one message.
	code, stdout, stderr = runFerryIn(t, "{\n  \"id\": 43\n}\n", append([]string{"call", "get_order", "-"}, stdioCommand(t)...))
	if code != exitOK || !strings.Contains(stdout, `"id": 43`) {
		t.Errorf("stdio: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// Bad JSON arguments are a usage error (2), found before connecting: one
// line naming the problem, then one saying where the usage is, not the
// usage itself, which would push the problem out of sight.
func TestCallMalformedArguments(t *testing.T) {
	var hits atomic.Int64
	srv := shopServer(nil)
	url := httpServer(t, srv, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			next.ServeHTTP(w, r)
		})
	})
	tests := []struct{ name, stdin, arg, want string }{
		{"cut short", "", `{"id": 7`, "ferry: call: the JSON argument is not JSON: it ends before the object does; quote it for the shell"},
		{"syntax", "", `{id: 7}`, "ferry: call: the JSON argument is not JSON (at byte 2: invalid character 'i' looking for beginning of object key string); quote it for the shell"},
		{"not an object", "", `[7]`, "ferry: call: the JSON argument is JSON array, not an object"},
		{"null", "", `null`, "ferry: call: the JSON argument is null, not an object"},
		{"two values", "", `{} {}`, "ferry: call: the JSON argument is not one JSON object: data after the JSON value"},
		{"stdin", "id=7", "-", "ferry: call: stdin is not JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runFerryIn(t, tt.stdin, []string{"call", url, "get_order", tt.arg})
			if code != exitUsage || stdout != "" || !strings.HasPrefix(stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tt.want)
			}
			if _, rest, _ := strings.Cut(stderr, "\n"); rest != "ferry: \"ferry help call\" shows the usage, with examples\n" {
				t.Errorf("stderr %q: want the problem, then where to read the usage", stderr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server got %d requests; bad arguments must be refused before connecting", n)
	}
}

// The commands work against conformance/everything, Ferry's fixture for
// the official conformance suite, built and run as a stdio server: a call
// in each era, and lint finding the $ref of its JSON Schema 2020-12 tool,
// which some clients reject.
func TestEverythingServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "everything")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../../conformance/everything")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building conformance/everything: %v\n%s", err, out)
	}
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		code, stdout, stderr := runFerry(t, []string{"call", "-protocol", protocol, "add", `{"a": 2, "b": 3}`, "--", bin})
		if code != exitOK || !strings.Contains(stdout, `"sum": 5`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", protocol, code, stdout, stderr)
		}
	}
	// A tool that asks the user cannot be served to ferry, which cannot
	// answer: call says so and exits 1 (the server is fine).
	code, _, stderr := runFerry(t, []string{"call", "-protocol", "2026-07-28", "test_elicitation", `{"message": "Who?"}`, "--", bin})
	if code != exitFailed || !strings.Contains(stderr, "ferry cannot answer a tool's questions") {
		t.Errorf("an eliciting tool: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := runFerry(t, []string{"lint", "-quiet", "--", bin})
	want := "tool json_schema_2020_12_tool: input schema: $ref at address, which some clients reject: inline the schema [schema-unportable]"
	if code != exitFailed || !strings.Contains(stdout, want+"\n") {
		t.Errorf("lint: exit %d, want %d and the line %q in:\n%s", code, exitFailed, want, stdout)
	}
}

// taskServer is a server of tasks with a tool that reports progress as a
// task and finishes once told to, and one that fails.
func taskServer(release <-chan struct{}) *ferry.Server {
	srv := ferry.NewServer("reports", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler),
		Tasks: &ferry.TaskOptions{PollInterval: 10 * time.Millisecond}})
	ferry.AddTool(srv, ferry.Tool{Name: "build_report", Description: "Builds the report.", ReadOnly: true, TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, _ struct{}) (order, error) {
			<-release
			return order{ID: 1, Status: "built"}, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "broken_report", Description: "Fails.", ReadOnly: true, TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ struct{}) (order, error) {
			return order{}, ferry.NotFound("no data for the report")
		})
	return srv
}

// call -task runs a tool as a task: its id and status on stderr, then the
// result on stdout as a plain call prints it; a tool failing in its task
// exits 1 with its error result.
func TestCallTask(t *testing.T) {
	release := make(chan struct{})
	url := httpServer(t, taskServer(release), nil)
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	code, stdout, stderr := runFerry(t, []string{"call", "-task", url, "build_report"})
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var got struct {
		StructuredContent order `json:"structuredContent"`
		IsError           bool  `json:"isError"`
	}
	decodeStdout(t, stdout, &got)
	if got.StructuredContent != (order{ID: 1, Status: "built"}) || got.IsError {
		t.Errorf("result %+v", got)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ferry: task ") || lines[1] != "ferry: task working" || lines[2] != "ferry: task completed" {
		t.Errorf("stderr %q, want the task's id, working, completed", stderr)
	}
	code, stdout, stderr = runFerry(t, []string{"call", "-task", "-quiet", url, "broken_report"})
	if code != exitFailed || !strings.Contains(stdout, "no data for the report") || !strings.Contains(stderr, "error result") {
		t.Errorf("a failing task: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Without -task, a tool that requires one is refused by the server.
	if code, _, stderr := runFerry(t, []string{"call", url, "broken_report"}); code == exitOK || !strings.Contains(stderr, "tasks") {
		t.Errorf("a required-task tool without -task: exit %d, stderr %q", code, stderr)
	}
}
