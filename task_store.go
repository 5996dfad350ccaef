package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"
)

// This file holds the task store: where the tasks extension keeps its
// tasks (see [TaskOptions.Store]), in memory by default
// (task_memory.go) and in Redis for replicas (redisstore). The server
// that runs a task keeps only its handler's context and renews the
// task's lease; everything a client reads goes through the store, so
// that any replica answers for any task.

// TaskStatus is the status of a task, as tasks/get reports it.
type TaskStatus string

// The statuses of a task. Completed, failed and cancelled are terminal:
// a task in one of them never changes again.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is a status a task ends in.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskRecord is a task as a [TaskStore] keeps it.
type TaskRecord struct {
	// ID is the task's id: 128 random bits, so unguessable.
	ID string `json:"id"`
	// Owner is who the task belongs to (the caller's issuer and subject,
	// or "" for an anonymous caller). It is opaque to the store, which
	// compares it byte for byte.
	Owner string `json:"owner"`
	// Status is where the task is.
	Status TaskStatus `json:"status"`
	// Message is the status message, if any.
	Message string `json:"message,omitempty"`
	// Created and Updated are when the task was created and last changed.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Expires is when the store forgets the task, its result included.
	Expires time.Time `json:"expires"`
	// Lease is when the task's run is taken to have died unless the
	// server running it renews the lease first; zero for a terminal task.
	Lease time.Time `json:"lease,omitzero"`
	// Result is a completed task's result object, as the plain call's.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is a failed task's error object (code, message, data).
	Error json.RawMessage `json:"error,omitempty"`
	// Requests are the questions open while the task is input_required,
	// by key.
	Requests map[string]json.RawMessage `json:"requests,omitempty"`
	// Answers are the answers the client gave, by key.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// Clone returns a copy of r that shares nothing with it.
func (r *TaskRecord) Clone() *TaskRecord {
	c := *r
	c.Result = slices.Clone(r.Result)
	c.Error = slices.Clone(r.Error)
	c.Requests = maps.Clone(r.Requests)
	c.Answers = maps.Clone(r.Answers)
	return &c
}

// Running reports whether r counts as running at now: not terminal, and
// its lease not yet past.
func (r *TaskRecord) Running(now time.Time) bool {
	return !r.Status.Terminal() && now.Before(r.Lease)
}

// TaskCaps are the per-owner bounds [TaskStore.Create] enforces.
type TaskCaps struct {
	// MaxRunning bounds the owner's running tasks (see
	// [TaskRecord.Running]).
	MaxRunning int
	// MaxKept bounds the owner's tasks kept, whatever their status.
	MaxKept int
}

// Errors of a [TaskStore].
var (
	// ErrTaskNotFound is a task that is unknown, another owner's or
	// expired.
	ErrTaskNotFound = errors.New("ferry: task not found")
	// ErrTooManyTasks is a task over its owner's [TaskCaps].
	ErrTooManyTasks = errors.New("ferry: too many tasks")
)

// TaskStore keeps the tasks of the tasks extension (see
// [TaskOptions.Store]). Every method must be safe for concurrent use,
// including on one task; ctx bounds the call. Errors other than the
// sentinels below are failures of the store itself, which the server
// answers as the store being unavailable.
//
// The contract:
//
//   - A task belongs to its owner: Get and Update of another owner's
//     task return [ErrTaskNotFound], as for an unknown id.
//   - A task is forgotten once its Expires passes (at the store's clock,
//     to within a second): from then on it is not found, and it no longer
//     counts against its owner's caps.
//   - Create checks the owner's caps and keeps the task in one atomic
//     step, across every server sharing the store: running tasks (not
//     terminal, lease not past) at most caps.MaxRunning, tasks kept at
//     most caps.MaxKept, counting the new one.
//   - Update is atomic: concurrent updates of one task are applied one
//     after the other, none lost.
//   - Every Update that stores a change is signalled to every Watch
//     callback of every store sharing the tasks, this one included, with
//     the task's id, soon after Update returns. Signals may be lost (a
//     connection down): the server polls its running tasks at every
//     lease renewal as well, so a lost signal delays a cancellation by
//     at most a lease's third.
//
// [ferrytest.RunTaskStoreTests] checks an implementation against this
// contract.
//
// [ferrytest.RunTaskStoreTests]: https://pkg.go.dev/github.com/ferry-mcp/ferry/ferrytest#RunTaskStoreTests
type TaskStore interface {
	// Create keeps a new task, a copy of t, or returns [ErrTooManyTasks]
	// when its owner is at one of caps.
	Create(ctx context.Context, t *TaskRecord, caps TaskCaps) error
	// Get returns a copy of owner's task id, which the caller may change
	// freely, or [ErrTaskNotFound].
	Get(ctx context.Context, owner, id string) (*TaskRecord, error)
	// Update changes owner's task id atomically: it calls f with a copy
	// of the task and stores what f leaves in it, unless f returns an
	// error, in which case nothing changes and Update returns that error.
	// f may be called more than once (a store may retry on a conflict),
	// so it must do nothing but change the task; it must not change ID,
	// Owner, Created or Expires. Update returns [ErrTaskNotFound], without
	// calling f, for a task that is unknown, another owner's or expired.
	Update(ctx context.Context, owner, id string, f func(*TaskRecord) error) error
	// Count returns how many tasks owner has kept and how many of them
	// run (see [TaskRecord.Running]).
	Count(ctx context.Context, owner string) (kept, running int, err error)
	// Watch calls f with the id of each task an Update changed, on any
	// store sharing the tasks, until stop is called; f must not block.
	// Nothing is delivered after stop returns.
	Watch(f func(id string)) (stop func())
}
