package ferry

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds the task status notifications of the tasks extension: a
// subscriptions/listen that names tasks in params.notifications.taskIds
// hears notifications/tasks, each the whole task as tasks/get reads it,
// whenever one of them changes, on whichever replica it runs (the store's
// Watch signals the change). A caller hears only of its own tasks: the
// acknowledgement lists those, and leaves out the others without a word.

const methodTaskStatus = "notifications/tasks"

// maxTaskIDBytes is the longest task id a listen looks up; a longer one
// is no id of ours (see newTaskID) and is not acknowledged.
const maxTaskIDBytes = 64

// taskListeners are the listen streams that hear of tasks' changes, by
// task id.
type taskListeners struct {
	mu sync.Mutex
	by map[string]map[*watcher]struct{}
}

// changed tells the streams that listen to task id that it changed. It
// does not block: it only queues.
func (l *taskListeners) changed(id string) {
	l.mu.Lock()
	ws := make([]*watcher, 0, len(l.by[id]))
	for w := range l.by[id] {
		ws = append(ws, w)
	}
	l.mu.Unlock()
	for _, w := range ws {
		w.push(change{method: methodTaskStatus, uri: id})
	}
}

// listen makes w hear of the changes of the tasks ids until stop is
// called, and starts the store's signals if they do not run.
func (ts *tasks) listen(w *watcher, ids []string) (stop func()) {
	ts.watch.Do(func() { ts.store.Watch(ts.changed) })
	l := &ts.listeners
	l.mu.Lock()
	if l.by == nil {
		l.by = make(map[string]map[*watcher]struct{})
	}
	for _, id := range ids {
		if l.by[id] == nil {
			l.by[id] = make(map[*watcher]struct{})
		}
		l.by[id][w] = struct{}{}
	}
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, id := range ids {
			delete(l.by[id], w)
			if len(l.by[id]) == 0 {
				delete(l.by, id)
			}
		}
	}
}

// ackTasks returns the ids among ids of tasks the caller of ctx owns and
// the store keeps, each once, in order: those a listen acknowledges.
// Another caller's task and an unknown id are left out alike.
func (s *Server) ackTasks(ctx context.Context, ids []string) ([]string, error) {
	owner := ownerOf(ctx)
	seen := make(map[string]bool, len(ids))
	var acked []string
	for _, id := range ids {
		if id == "" || len(id) > maxTaskIDBytes || seen[id] {
			continue
		}
		seen[id] = true
		_, err := s.tasks.load(ctx, owner, id)
		switch {
		case errors.Is(err, ErrTaskNotFound):
		case err != nil:
			return nil, s.storeError(ctx, id, err)
		default:
			acked = append(acked, id)
		}
	}
	return acked, nil
}

// taskState is what a listen last told of a task.
type taskState struct {
	status  TaskStatus
	updated time.Time
}

// appendTaskNote appends the notifications/tasks of the caller's task id on
// the listen stream of r, as tasks/get reads the task now, or returns b
// unchanged when the task is gone or reads as sent already (sent holds
// what was).
func (s *Server) appendTaskNote(ctx context.Context, r *request, b []byte, id string, sent map[string]taskState) []byte {
	t, err := s.tasks.load(ctx, ownerOf(ctx), id)
	if err != nil {
		if !errors.Is(err, ErrTaskNotFound) && ctx.Err() == nil {
			s.logError(ctx, "task store failed", "task", id, "err", err)
		}
		return b
	}
	st := taskState{t.Status, t.Updated}
	if prev, ok := sent[id]; ok && prev.status == st.status && prev.updated.Equal(st.updated) {
		return b
	}
	sent[id] = st
	params := s.appendTaskDetail([]byte{'{'}, t)
	params = append(params, `,"_meta":{"`+metaSubscriptionID+`":`...)
	params = append(params, r.id...)
	params = append(params, "}}"...)
	return jsonrpc.AppendRequest(b, nil, methodTaskStatus, params)
}
