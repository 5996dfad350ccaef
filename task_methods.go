package ferry

import (
	"context"
	"encoding/json"
	"errors"
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
// tasks/get carry them.
func (s *Server) appendTask(b []byte, t *TaskRecord) []byte {
	b = appendKey(b, "taskId")
	b = jsontext.AppendString(b, t.ID)
	b = appendKey(b, "status")
	b = jsontext.AppendString(b, string(t.Status))
	if t.Message != "" {
		b = appendKey(b, "statusMessage")
		b = jsontext.AppendString(b, t.Message)
	}
	b = appendKey(b, "createdAt")
	b = jsontext.AppendString(b, t.Created.UTC().Format(time.RFC3339Nano))
	b = appendKey(b, "lastUpdatedAt")
	b = jsontext.AppendString(b, t.Updated.UTC().Format(time.RFC3339Nano))
	b = appendKey(b, "ttlMs")
	b = strconv.AppendInt(b, s.tasks.opts.TTL.Milliseconds(), 10)
	b = appendKey(b, "pollIntervalMs")
	return strconv.AppendInt(b, max(1, s.tasks.opts.PollInterval.Milliseconds()), 10)
}

// getTask answers tasks/get: the task's status and, once it ended, its
// result (exactly as the plain call's) or its error; the open questions
// while it waits for input.
func (s *Server) getTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	t, err := s.tasks.load(ctx, ownerOf(ctx), r.target.name)
	if err != nil {
		return b, s.storeError(ctx, r.target.name, err)
	}
	return s.appendTaskDetail(b, t), nil
}

// appendTaskDetail appends the members of a task as tasks/get carries
// them: [Server.appendTask]'s, and what its status calls for.
func (s *Server) appendTaskDetail(b []byte, t *TaskRecord) []byte {
	b = s.appendTask(b, t)
	switch t.Status {
	case TaskCompleted:
		b = appendKey(b, "result")
		b = append(b, t.Result...)
	case TaskFailed:
		b = appendKey(b, "error")
		b = append(b, t.Error...)
	case TaskInputRequired:
		b = appendKey(b, "inputRequests")
		b = append(b, '{')
		for i, k := range sortedKeys(t.Requests) {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsontext.AppendString(b, k)
			b = append(b, ':')
			b = append(b, t.Requests[k]...)
		}
		b = append(b, '}')
	}
	return b
}

// updateTask answers tasks/update: the answers to the task's open
// questions are kept (others are ignored), and once every open question
// is answered the task runs again, on the server that runs it. The answer
// is an empty result.
func (s *Server) updateTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	var fresh map[string]json.RawMessage
	if p := r.params.InputResponses; len(p) > 0 && string(p) != "null" {
		if err := json.Unmarshal(p, &fresh); err != nil {
			return b, NewError(CodeInvalidParams, "inputResponses must be an object keyed by the inputRequests keys")
		}
	}
	ts := s.tasks
	owner, id := ownerOf(ctx), r.target.name
	if _, err := ts.load(ctx, owner, id); err != nil {
		return b, s.storeError(ctx, id, err)
	}
	err := ts.store.Update(ctx, owner, id, func(t *TaskRecord) error {
		if t.Status != TaskInputRequired {
			return errTaskEnded
		}
		for k, v := range fresh {
			if _, open := t.Requests[k]; !open {
				continue
			}
			if t.Answers == nil {
				t.Answers = make(map[string]json.RawMessage)
			}
			t.Answers[k] = v
			delete(t.Requests, k)
		}
		if len(t.Requests) == 0 {
			t.Status, t.Requests, t.Updated = TaskWorking, nil, time.Now()
		}
		return nil
	})
	if err != nil && !errors.Is(err, errTaskEnded) {
		return b, s.storeError(ctx, id, err)
	}
	return b, nil
}

// cancelTask answers tasks/cancel: a running task reads cancelled, and the
// server running it cancels its context (at once when it is this one, on
// the store's signal otherwise); a task that ended already is left as it
// is. The answer is an empty result either way.
func (s *Server) cancelTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	ts := s.tasks
	owner, id := ownerOf(ctx), r.target.name
	if _, err := ts.load(ctx, owner, id); err != nil {
		return b, s.storeError(ctx, id, err)
	}
	err := ts.store.Update(ctx, owner, id, func(t *TaskRecord) error {
		if t.Status.Terminal() {
			return errTaskEnded
		}
		t.Status, t.Requests, t.Lease, t.Updated = TaskCancelled, nil, time.Time{}, time.Now()
		return nil
	})
	if err != nil && !errors.Is(err, errTaskEnded) {
		return b, s.storeError(ctx, id, err)
	}
	ts.mu.Lock()
	rt := ts.local[id]
	ts.mu.Unlock()
	if rt != nil && rt.owner == owner {
		rt.cancel()
	}
	return b, nil
}
