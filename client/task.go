package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// This file holds the client side of the tasks extension
// (io.modelcontextprotocol/tasks): a tools/call that the server runs in
// the background, polled with tasks/get until it ends.

// Task is a task as the server reports it.
type Task struct {
	// ID is the task's id.
	ID string `json:"taskId"`
	// Status is "working", "input_required", "completed", "failed" or
	// "cancelled".
	Status string `json:"status"`
	// StatusMessage says more about the status, if the server said more.
	StatusMessage string `json:"statusMessage,omitempty"`
	// PollInterval is how often the server suggests polling, in
	// milliseconds.
	PollInterval int64 `json:"pollIntervalMs,omitempty"`
	// Result is a completed task's result, as the plain call's.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is a failed task's error.
	Error *Error `json:"error,omitempty"`
}

// tasksExtension is the extension's identifier.
const tasksExtension = "io.modelcontextprotocol/tasks"

// pollBounds bound the wait between two polls, whatever the server
// suggests.
const (
	minPoll = 50 * time.Millisecond
	maxPoll = 5 * time.Second
)

// CallToolAsTask calls a tool as a task of the tasks extension, which it
// declares for its requests, and polls the task with tasks/get until it
// ends, calling progress (if not nil) with each status read. It returns
// the task's result as [Client.CallTool] returns a call's: a tool that
// fails gives a result with IsError set. A task that failed or was
// cancelled is an error; one that asks a question (input_required) is
// cancelled, and an error, since the client answers none. A tool that
// does not run as a task is answered at once, as a plain call. If ctx
// ends first, the task is cancelled. The extension is declared per
// request, so it needs the 2026-07-28 era; in the legacy era the call is
// a plain one.
func (c *Client) CallToolAsTask(ctx context.Context, name string, args any, progress func(*Task)) (*ToolResult, error) {
	if !c.modern {
		return c.CallTool(ctx, name, args)
	}
	params := rawParams{"name": jsonString(name), "_meta": c.taskMeta()}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("client: tool arguments: %w", err)
		}
		if string(raw) != "null" {
			params["arguments"] = raw
		}
	}
	raw, err := c.call(ctx, "tools/call", params)
	if err != nil {
		return nil, err
	}
	var head struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(raw, &head)
	if head.ResultType != "task" {
		var res ToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("client: decoding the result of tools/call: %w", err)
		}
		return &res, nil
	}
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil || t.ID == "" {
		return nil, fmt.Errorf("client: the server answered with a task without an id: %s", raw)
	}
	return c.pollTask(ctx, &t, progress)
}

// taskMeta is the _meta of a request that declares the tasks extension
// besides the client's capabilities.
func (c *Client) taskMeta() json.RawMessage {
	caps := c.capabilities()
	caps["extensions"] = map[string]any{tasksExtension: struct{}{}}
	v, _ := json.Marshal(map[string]any{"io.modelcontextprotocol/clientCapabilities": caps})
	return v
}

// pollTask reads t until it ends.
func (c *Client) pollTask(ctx context.Context, t *Task, progress func(*Task)) (*ToolResult, error) {
	id := t.ID
	for {
		if progress != nil {
			progress(t)
		}
		switch t.Status {
		case "completed":
			var res ToolResult
			if err := json.Unmarshal(t.Result, &res); err != nil {
				return nil, fmt.Errorf("client: decoding the result of task %s: %w", id, err)
			}
			return &res, nil
		case "failed":
			if t.Error != nil {
				return nil, fmt.Errorf("client: task %s failed: %w", id, t.Error)
			}
			return nil, fmt.Errorf("client: task %s failed: %s", id, t.StatusMessage)
		case "cancelled":
			return nil, fmt.Errorf("client: task %s was cancelled: %s", id, t.StatusMessage)
		case "input_required":
			c.cancelTask(ctx, id)
			return nil, fmt.Errorf("client: task %s asks a question this client cannot answer; it was cancelled", id)
		}
		wait := min(max(time.Duration(t.PollInterval)*time.Millisecond, minPoll), maxPoll)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			c.cancelTask(ctx, id)
			return nil, ctx.Err()
		case <-timer.C:
		}
		next := new(Task)
		if err := c.Call(ctx, "tasks/get", rawParams{"taskId": jsonString(id), "_meta": c.taskMeta()}, next); err != nil {
			if ctx.Err() != nil {
				c.cancelTask(ctx, id)
			}
			return nil, err
		}
		if next.ID == "" {
			next.ID = id
		}
		t = next
	}
}

// cancelTask asks the server to cancel task id, for at most a second
// past ctx's end.
func (c *Client) cancelTask(ctx context.Context, id string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	_ = c.Call(cctx, "tasks/cancel", rawParams{"taskId": jsonString(id), "_meta": c.taskMeta()}, nil)
}
