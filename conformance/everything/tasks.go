package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ferry-mcp/ferry"
)

// addTaskTools adds the tools the tasks-* scenarios of the conformance
// suite (0.2.0-alpha.12, io.modelcontextprotocol/tasks) call: a plain
// tool, tools that run as tasks (optionally or only), one that fails, one
// whose failure is a protocol error and tools that ask the user inside a
// task.
func addTaskTools(srv *ferry.Server) {
	type greetIn struct {
		Name string `json:"name" doc:"Who to greet."`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "greet", Description: "Greets someone, at once (never a task).", ReadOnly: true},
		func(_ context.Context, in greetIn) (*ferry.ToolResult, error) {
			return text("Hello, " + in.Name + "!"), nil
		})
	type computeIn struct {
		Seconds float64 `json:"seconds" doc:"How long to work." minimum:"0" maximum:"600"`
		Label   string  `json:"label,omitempty" doc:"A label for the result."`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "slow_compute", Description: "Works for the given seconds, as a task for a client that speaks tasks.",
		ReadOnly: true, TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, in computeIn) (*ferry.ToolResult, error) {
			if err := sleep(ctx, time.Duration(in.Seconds*float64(time.Second))); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("computed %s after %gs", in.Label, in.Seconds)), nil
		})
	srv.AddTool(ferry.Tool{Name: "failing_job", Description: "Fails after a second: a tool error, as a task only.",
		RawInputSchema: noArgs(), TaskSupport: ferry.TaskRequired},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			if err := sleep(ctx, time.Second); err != nil {
				return nil, err
			}
			return ferry.NewErrorResult("the job failed"), nil
		})
	srv.AddTool(ferry.Tool{Name: "protocol_error_job", Description: "Fails with a protocol error, as a task.",
		RawInputSchema: noArgs(), TaskSupport: ferry.TaskOptional},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return nil, ferry.NewError(ferry.CodeInternalError, "the job broke")
		})
	type deleteIn struct {
		Filename string `json:"filename" doc:"The file to delete."`
	}
	confirm := json.RawMessage(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	ferry.AddTool(srv, ferry.Tool{Name: "confirm_delete", Description: "Asks the user to confirm, then deletes the file (nothing really).",
		TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, in deleteIn) (*ferry.ToolResult, error) {
			r, err := elicitAs(ctx, "confirm", "Delete "+in.Filename+"?", confirm)
			if err != nil {
				return nil, err
			}
			if r.Action != "accept" || r.Content["confirm"] != true {
				return text("kept " + in.Filename), nil
			}
			return text("deleted " + in.Filename), nil
		})
	both := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"confirm":{"type":"boolean"}}}`)
	srv.AddTool(ferry.Tool{Name: "multi_input", Description: "Asks the user two things at once.",
		RawInputSchema: noArgs(), TaskSupport: ferry.TaskOptional},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			// Both questions are asked before either is waited for, so
			// that both are open at once.
			a, errA := elicitAs(ctx, "first", "First?", both)
			b, errB := elicitAs(ctx, "second", "Second?", both)
			if err := errors.Join(errA, errB); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("got %v and %v", a.Content["name"], b.Content["name"])), nil
		})
	addComposedTaskTool(srv)
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// addComposedTaskTool adds the tool of tasks-mrtr-composition: it asks
// the user's name as a plain 2026-07-28 call, and becomes a task on the
// retry that answers it.
func addComposedTaskTool(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "test_tool_with_task", Description: "Asks the user's name, then greets them from a task.",
		RawInputSchema: noArgs(), TaskSupport: ferry.TaskRequired, AskBeforeTask: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := elicitAs(ctx, "user_name", "What is your name?", nameSchema("name"))
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Hello, %v!", r.Content["name"])), nil
		})
}
