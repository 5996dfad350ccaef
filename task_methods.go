package ferry

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// This file holds the methods of the tasks extension: tasks/get,
// tasks/update and tasks/cancel, rows of the method table that exist only
// on a server that serves the extension (see [ServerOptions.Tasks]). Each
// names a task by params.taskId (which Mcp-Name repeats over HTTP), and a
// caller finds only its own tasks: another's reads as an unknown one.

// appendTask appends the members of a task as CreateTaskResult and
// tasks/get carry them. The caller holds s.tasks.mu.
func (s *Server) appendTask(b []byte, t *task) []byte {
	b = appendKey(b, "taskId")
	b = jsontext.AppendString(b, t.id)
	b = appendKey(b, "status")
	b = jsontext.AppendString(b, t.status)
	if t.message != "" {
		b = appendKey(b, "statusMessage")
		b = jsontext.AppendString(b, t.message)
	}
	b = appendKey(b, "createdAt")
	b = jsontext.AppendString(b, t.created.UTC().Format(time.RFC3339Nano))
	b = appendKey(b, "lastUpdatedAt")
	b = jsontext.AppendString(b, t.updated.UTC().Format(time.RFC3339Nano))
	b = appendKey(b, "ttlMs")
	b = strconv.AppendInt(b, s.tasks.opts.TTL.Milliseconds(), 10)
	b = appendKey(b, "pollIntervalMs")
	return strconv.AppendInt(b, max(1, s.tasks.opts.PollInterval.Milliseconds()), 10)
}

// getTask answers tasks/get: the task's status and, once it ended, its
// result (exactly as the plain call's) or its error; the open questions
// while it waits for input.
func (s *Server) getTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	ts := s.tasks
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.getLocked(ownerOf(ctx), r.target.name)
	if t == nil {
		return b, unknownTask(r.target.name)
	}
	b = s.appendTask(b, t)
	switch t.status {
	case taskCompleted:
		b = appendKey(b, "result")
		b = append(b, t.result...)
	case taskFailed:
		data, _ := json.Marshal(struct {
			Code    Code   `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data,omitempty"`
		}{t.err.Code, t.err.Message, t.err.Data})
		b = appendKey(b, "error")
		b = append(b, data...)
	case taskInputRequired:
		b = appendKey(b, "inputRequests")
		b = append(b, '{')
		for i, k := range sortedKeys(t.requests) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, k)
			b = append(b, ':')
			b = append(b, t.requests[k]...)
		}
		b = append(b, '}')
	}
	return b, nil
}

// updateTask answers tasks/update: the answers to the task's open
// questions are kept (others are ignored), and once every open question
// is answered the task runs again. The answer is an empty result.
func (s *Server) updateTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	var fresh map[string]json.RawMessage
	if p := r.params.InputResponses; len(p) > 0 && string(p) != "null" {
		if err := json.Unmarshal(p, &fresh); err != nil {
			return b, NewError(CodeInvalidParams, "inputResponses must be an object keyed by the inputRequests keys")
		}
	}
	ts := s.tasks
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.getLocked(ownerOf(ctx), r.target.name)
	if t == nil {
		return b, unknownTask(r.target.name)
	}
	if t.status != taskInputRequired {
		return b, nil
	}
	for k, v := range fresh {
		if _, open := t.requests[k]; !open {
			continue
		}
		if t.answers == nil {
			t.answers = make(map[string]json.RawMessage)
		}
		t.answers[k] = v
		delete(t.requests, k)
	}
	if len(t.requests) == 0 {
		t.status, t.requests, t.updated = taskWorking, nil, time.Now()
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	return b, nil
}

// cancelTask answers tasks/cancel: a running task's context is cancelled
// and the task reads cancelled; a task that ended already is left as it
// is. The answer is an empty result either way.
func (s *Server) cancelTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	ts := s.tasks
	ts.mu.Lock()
	t := ts.getLocked(ownerOf(ctx), r.target.name)
	ts.mu.Unlock()
	if t == nil {
		return b, unknownTask(r.target.name)
	}
	ts.settle(t, taskCancelled, nil, nil)
	return b, nil
}
