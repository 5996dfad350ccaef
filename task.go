package ferry

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// This file holds the tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663) on one server: a tools/call of a tool that supports tasks,
// from a client that declared the extension, answers at once with the task
// (resultType "task") and runs in the background, with a context of its
// own; tasks/get polls it, tasks/update answers the questions it asks and
// tasks/cancel stops it (task_methods.go). Nothing here runs unless
// [ServerOptions.Tasks] turns the extension on.

// TaskSupport says whether a tool runs as a task (see [Tool.TaskSupport]).
type TaskSupport uint8

// The task support a tool declares, as the protocol's execution.taskSupport.
const (
	// TaskForbidden is the default: the tool never runs as a task.
	TaskForbidden TaskSupport = iota
	// TaskOptional runs the tool as a task for a client that declared the
	// tasks extension, and as a plain call for one that did not.
	TaskOptional
	// TaskRequired runs the tool only as a task: a client that did not
	// declare the tasks extension gets -32021 naming it.
	TaskRequired
)

// String returns the protocol's name of t: "forbidden", "optional" or
// "required".
func (t TaskSupport) String() string {
	switch t {
	case TaskOptional:
		return "optional"
	case TaskRequired:
		return "required"
	}
	return "forbidden"
}

// TaskOptions turn on the tasks extension (io.modelcontextprotocol/tasks)
// and bound the tasks a server keeps. The zero value holds the defaults.
type TaskOptions struct {
	// TTL is how long a task is kept from its creation, its result
	// included: after it, tasks/get answers as for an unknown task. If
	// zero, defaults to [DefaultTaskTTL].
	TTL time.Duration
	// PollInterval is how often the server suggests a client poll
	// tasks/get. If zero, defaults to [DefaultTaskPollInterval].
	PollInterval time.Duration
	// MaxRunning bounds the tasks of one caller that run at once; a call
	// over it gets an IsError result saying so. If zero, defaults to
	// [DefaultMaxRunningTasks].
	MaxRunning int
	// MaxKept bounds the tasks of one caller the server keeps, running
	// or done; a call over it gets an IsError result saying so. If zero,
	// defaults to [DefaultMaxKeptTasks].
	MaxKept int
}

// Task defaults (see [TaskOptions]).
const (
	DefaultTaskTTL          = time.Hour
	DefaultTaskPollInterval = 500 * time.Millisecond
	DefaultMaxRunningTasks  = 16
	DefaultMaxKeptTasks     = 256
)

// The statuses of a task.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// tasks is the tasks of a server, in memory: each caller's, bounded.
type tasks struct {
	opts TaskOptions

	mu     sync.Mutex             // guards byID, owners, swept and the tasks' mutable fields
	byID   map[string]*task       // every task kept, by id
	owners map[string]*ownerTasks // the counts of each owner's tasks
	swept  time.Time              // when the expired tasks were last dropped
}

// ownerTasks counts one owner's tasks, kept and running.
type ownerTasks struct{ kept, running int }

func newTasks(o *TaskOptions) *tasks {
	t := &tasks{opts: *o, byID: map[string]*task{}, owners: map[string]*ownerTasks{}}
	if t.opts.TTL <= 0 {
		t.opts.TTL = DefaultTaskTTL
	}
	if t.opts.PollInterval <= 0 {
		t.opts.PollInterval = DefaultTaskPollInterval
	}
	if t.opts.MaxRunning <= 0 {
		t.opts.MaxRunning = DefaultMaxRunningTasks
	}
	if t.opts.MaxKept <= 0 {
		t.opts.MaxKept = DefaultMaxKeptTasks
	}
	return t
}

// task is one task. Its fields after owner are guarded by tasks.mu.
type task struct {
	id, owner string
	created   time.Time
	expires   time.Time
	cancel    context.CancelFunc

	updated  time.Time
	status   string
	message  string
	result   []byte                     // a completed task's result object
	err      *Error                     // a failed task's error
	requests map[string]json.RawMessage // the questions open, when input_required
	answers  map[string]json.RawMessage // every answer the client gave
	wake     chan struct{}              // signalled when the open questions are all answered
}

func (t *task) terminal() bool {
	return t.status == taskCompleted || t.status == taskFailed || t.status == taskCancelled
}

// ownerOf is who a task belongs to: the caller's issuer and subject, or
// "" for an anonymous caller, whose tasks are found by their unguessable
// ids alone.
func ownerOf(ctx context.Context) string {
	p, ok := PrincipalFromContext(ctx)
	if !ok {
		return ""
	}
	return "\x00" + p.Issuer + "\x00" + p.Subject
}

// newTaskID returns an unguessable task id: 128 random bits.
func newTaskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// errTaskCaps is the refusal of a task over a per-caller bound.
var errTaskCaps = errors.New("too many tasks: wait for one to finish, or cancel one")

// add keeps a new task of owner, or refuses it over a bound. It drops the
// expired tasks first.
func (ts *tasks) add(owner string, cancel context.CancelFunc) (*task, error) {
	now := time.Now()
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if now.Sub(ts.swept) > time.Second {
		ts.sweepLocked(now)
	}
	n := ts.owners[owner]
	if n != nil && (n.kept >= ts.opts.MaxKept || n.running >= ts.opts.MaxRunning) {
		// The owner's expired tasks may not be swept yet.
		ts.sweepOwnerLocked(owner, now)
		if n = ts.owners[owner]; n != nil && (n.kept >= ts.opts.MaxKept || n.running >= ts.opts.MaxRunning) {
			return nil, errTaskCaps
		}
	}
	if n == nil {
		n = new(ownerTasks)
		ts.owners[owner] = n
	}
	t := &task{id: newTaskID(), owner: owner, created: now, expires: now.Add(ts.opts.TTL), cancel: cancel,
		updated: now, status: taskWorking, wake: make(chan struct{}, 1)}
	ts.byID[t.id] = t
	n.kept++
	n.running++
	return t, nil
}

// sweepLocked drops the tasks past their TTL, cancelling any still
// running. The caller holds ts.mu.
func (ts *tasks) sweepLocked(now time.Time) {
	ts.swept = now
	for _, t := range ts.byID {
		if now.After(t.expires) {
			ts.dropLocked(t)
		}
	}
}

// sweepOwnerLocked drops owner's tasks past their TTL. The caller holds
// ts.mu.
func (ts *tasks) sweepOwnerLocked(owner string, now time.Time) {
	for _, t := range ts.byID {
		if t.owner == owner && now.After(t.expires) {
			ts.dropLocked(t)
		}
	}
}

// dropLocked forgets t, cancelling it if it still runs. The caller holds
// ts.mu.
func (ts *tasks) dropLocked(t *task) {
	t.cancel()
	delete(ts.byID, t.id)
	n := ts.owners[t.owner]
	if !t.terminal() {
		n.running--
	}
	if n.kept--; n.kept <= 0 {
		delete(ts.owners, t.owner)
	}
}

// get returns owner's task id, or nil: another owner's task, and an
// expired one, read as one that does not exist. The caller holds ts.mu.
func (ts *tasks) getLocked(owner, id string) *task {
	// The expired tasks are dropped on reads too, at most once a second,
	// so that a task past its TTL stops running when no new task comes.
	if now := time.Now(); now.Sub(ts.swept) > time.Second {
		ts.sweepLocked(now)
	}
	t := ts.byID[id]
	if t == nil || t.owner != owner || time.Now().After(t.expires) {
		return nil
	}
	return t
}

// unknownTask is the answer for a task id the caller has no task of.
func unknownTask(id string) error {
	return NewError(CodeInvalidParams, "unknown task %q", id)
}

// settle moves t to a terminal status, unless it is terminal already (a
// cancelled task stays cancelled whatever its handler returns).
func (ts *tasks) settle(t *task, status string, result []byte, err *Error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t.terminal() {
		return
	}
	if n := ts.byID[t.id]; n == t {
		ts.owners[t.owner].running--
	}
	t.status, t.result, t.err, t.requests, t.updated = status, result, err, nil, time.Now()
	t.cancel()
}

// wantsTask reports whether a tools/call runs as a task: the server serves
// tasks, the tool supports them and the client declared the extension. It
// returns the error a required-task tool's call gets from a client that
// did not.
func (s *Server) wantsTask(r *request) (bool, error) {
	ts := r.target.tool.tool.TaskSupport
	if ts == TaskForbidden || s.tasks == nil {
		return false, nil
	}
	if r.caps.ext.has(ExtensionTasks) {
		// A tool that asks before its task starts runs the first round
		// as a plain call.
		return !r.target.tool.tool.AskBeforeTask || r.carriesAnswers(), nil
	}
	if ts == TaskRequired {
		return false, missingExtension(ExtensionTasks)
	}
	return false, nil
}

// startTask answers a tools/call with a new task and runs the call in the
// background, in a context of its own that keeps ctx's values. The task
// is kept before the answer is written, so that a tasks/get right after
// it finds the task.
func (s *Server) startTask(ctx context.Context, r *request, b []byte) ([]byte, error) {
	var answers map[string]json.RawMessage
	if r.carriesAnswers() {
		if err := s.loadModernInput(ctx, r); err != nil {
			return b, err
		}
		answers = r.reply.input.answers
	}
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t, err := s.tasks.add(ownerOf(ctx), cancel)
	if err != nil {
		cancel()
		setOutcome(ctx, outcomeLimited, RefusalUnavailable)
		return (&ToolResult{Content: []Content{Text(err.Error())}, IsError: true}).appendMembers(b, false)
	}
	// The answer is written before the run starts: it reads working.
	s.tasks.mu.Lock()
	t.answers = answers
	b = s.appendTask(b, t)
	s.tasks.mu.Unlock()
	r.reply.task = true
	// A run counts as active in its transport's drain: a shutdown gives
	// it the drain's deadline, then cancels it.
	d := r.peer.drain
	if d != nil {
		d.enter()
		stop := context.AfterFunc(d.hard, cancel)
		go func() {
			defer d.leave()
			defer stop()
			s.runTask(tctx, t, s.taskRun(r))
		}()
	} else {
		go s.runTask(tctx, t, s.taskRun(r))
	}
	if !r.modern {
		b = appendKey(b, "resultType")
		b = append(b, `"task"`...)
	}
	return b, nil
}

// taskRun is what a task's runs of the call are made from: r, without
// its stream, its session or the reply it is being answered with.
type taskRun struct {
	r request
}

func (s *Server) taskRun(r *request) *taskRun {
	p := *r.params
	p.InputResponses, p.RequestState = nil, ""
	return &taskRun{r: request{
		peer: peer{header: r.peer.header, remote: r.peer.remote, host: r.peer.host, drain: r.peer.drain},
		id:   r.id, method: r.method, params: &p, modern: true, version: r.version, caps: r.caps,
		level: levelOff, caller: r.caller, row: r.row, target: r.target,
	}}
}

// next returns a fresh request for one run of the call, which reads
// answers, under ctx.
func (tr *taskRun) next(ctx context.Context, answers map[string]json.RawMessage) *request {
	r := &request{peer: tr.r.peer, id: tr.r.id, method: tr.r.method, params: tr.r.params, modern: true,
		version: tr.r.version, caps: tr.r.caps, level: levelOff, caller: tr.r.caller, row: tr.r.row, target: tr.r.target}
	r.ctx = requestCtx{Context: ctx, r: r}
	r.reply.input = &inputState{answers: answers}
	r.reply.task = true // a run of the task: it runs the call, not another task
	return r
}

// runTask runs the task's call until it ends: a question left open parks
// the task in input_required until tasks/update answers every open
// question, and then the call runs again from the start with every answer
// given, as a 2026-07-28 retry would.
func (s *Server) runTask(ctx context.Context, t *task, tr *taskRun) {
	ts := s.tasks
	defer func() {
		if tr.r.peer.drain.hardStopped() {
			ts.mu.Lock()
			if !t.terminal() {
				t.message = "the server shut down before the task ended"
			}
			ts.mu.Unlock()
			ts.settle(t, taskCancelled, nil, nil)
		}
	}()
	for {
		ts.mu.Lock()
		answers := make(map[string]json.RawMessage, len(t.answers))
		for k, v := range t.answers {
			answers[k] = v
		}
		ts.mu.Unlock()
		r := tr.next(ctx, answers)
		out, err := s.runTaskOnce(r)
		if tr.r.peer.drain.hardStopped() {
			return // cancelled by the shutdown, and marked so
		}
		switch {
		case errors.Is(err, errInputPending):
			if failed := r.reply.input.failure(); failed != nil {
				ts.settle(t, taskFailed, nil, asError(failed))
				return
			}
			if !s.parkTask(ctx, t, r.reply.input) {
				ts.settle(t, taskCancelled, nil, nil)
				return
			}
			continue
		case err != nil:
			ts.settle(t, taskFailed, nil, asError(s.protocolError(ctx, "task", t.id, err)))
		default:
			if len(r.reply.resultMeta) > 0 {
				out = appendMeta(out, r.reply.resultMeta, nil)
			}
			ts.settle(t, taskCompleted, append(out, '}'), nil)
		}
		return
	}
}

// runTaskOnce runs the call once, appending its result's members to an
// open object, with a handler's panic answered as serve answers one.
func (s *Server) runTaskOnce(r *request) (out []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			ref := newRef()
			s.logError(r.context(), "task panicked", "tool", r.target.name, "ref", ref, "panic", v, "stack", string(debug.Stack()))
			out, err = nil, internalError(ref)
		}
	}()
	return s.callTool(r.context(), r, []byte{'{'})
}

// parkTask records the questions a run left open and waits for their
// answers; false says the task ended (cancelled, expired) meanwhile.
func (s *Server) parkTask(ctx context.Context, t *task, in *inputState) bool {
	ts := s.tasks
	in.mu.Lock()
	requests := in.requests
	in.mu.Unlock()
	ts.mu.Lock()
	if t.terminal() {
		ts.mu.Unlock()
		return false
	}
	t.status, t.requests, t.updated = taskInputRequired, requests, time.Now()
	ts.mu.Unlock()
	select {
	case <-t.wake:
		return true
	case <-ctx.Done():
		return false
	}
}

// asError returns err as an [*Error], masking nothing: err is one already
// or is made one by [Server.protocolError].
func asError(err error) *Error {
	if e := (*Error)(nil); errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternalError, Message: strings.TrimPrefix(err.Error(), "ferry: ")}
}

// execution returns the tool's execution member, or nil for a tool that
// never runs as a task.
func (t *Tool) execution() *wireExecution {
	if t.TaskSupport == TaskForbidden {
		return nil
	}
	return &wireExecution{TaskSupport: t.TaskSupport.String()}
}

// checkTaskSupport reports a tool's task support the server cannot give:
// an unknown value, or a tool that needs tasks on a server that serves
// none.
func (s *Server) checkTaskSupport(t *Tool) []error {
	switch {
	case t.TaskSupport > TaskRequired:
		return []error{fmt.Errorf("tool %q: unknown TaskSupport %d", t.Name, t.TaskSupport)}
	case t.TaskSupport == TaskRequired && s.tasks == nil:
		return []error{fmt.Errorf("tool %q: TaskSupport is TaskRequired, but the server does not serve tasks (set ServerOptions.Tasks)", t.Name)}
	}
	return nil
}
