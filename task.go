package ferry

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// Store keeps the tasks. Replicas behind one address share one (see
	// redisstore), so that any of them answers for a task running on
	// another. If nil, each server keeps its own tasks in memory
	// ([NewMemoryTaskStore]).
	Store TaskStore
	// TTL is how long a task is kept from its creation, its result
	// included: after it, tasks/get answers as for an unknown task. If
	// zero, defaults to [DefaultTaskTTL].
	TTL time.Duration
	// PollInterval is how often the server suggests a client poll
	// tasks/get. If zero, defaults to [DefaultTaskPollInterval].
	PollInterval time.Duration
	// Timeout bounds a task's run, in place of the call's deadline
	// ([ServerOptions.CallTimeout] or [Tool.Timeout]), which a task
	// outlives: a run past it has its context cancelled, as a plain call
	// past its deadline does. If zero, defaults to [DefaultTaskTimeout];
	// it is at most TTL.
	Timeout time.Duration
	// Lease bounds how long a task reads working after the server running
	// it died: the server renews the lease of each task it runs every
	// third of it, and a task whose lease passed reads failed on every
	// server sharing the store. If zero, defaults to [DefaultTaskLease];
	// it is at least 100ms.
	Lease time.Duration
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
	DefaultTaskTimeout      = 30 * time.Minute
	DefaultTaskLease        = 15 * time.Second
	DefaultMaxRunningTasks  = 16
	DefaultMaxKeptTasks     = 256
)

// minTaskLease is the shortest lease: a third of it is the renewal's
// period, which must leave the store time to answer.
const minTaskLease = 100 * time.Millisecond

// tasks is the tasks side of a server: the options, the store, and the
// tasks whose handlers run here.
type tasks struct {
	opts  TaskOptions
	store TaskStore
	caps  TaskCaps
	watch sync.Once // subscribes to the store's signals, once a task runs or is listened to here

	listeners taskListeners // the listen streams that hear of tasks' changes (task_notify.go)

	mu      sync.Mutex              // guards local and beating
	local   map[string]*runningTask // the tasks running on this server
	beating bool                    // the lease renewal's goroutine runs
}

// runningTask is a task whose handler runs on this server.
type runningTask struct {
	id, owner string
	cancel    context.CancelFunc
	wake      chan struct{} // signalled when the task may have changed
	dirty     atomic.Bool   // a check of the task is pending (see changed)

	// With an observer, the tools/call that started the task is observed
	// until the task ends: end tells the observer.
	end   func(ctx context.Context, obs *observation, e RequestEnd)
	omu   sync.Mutex      // guards obs, octx and final
	obs   *observation    // the call's observation, once serve handed it over
	octx  context.Context //nolint:containedctx // the span the observer's Start began, which End ends
	final *RequestEnd     // how the task ended, once it did
}

// observed takes over the observation of the tools/call that started the
// task, once its answer is ready: the observer's End is called when the
// task ends, at once if it did already. What the observation holds of the
// request is copied, since the request does not outlive its answer.
func (rt *runningTask) observed(ctx context.Context, obs *observation) {
	in := &obs.info
	in.Method, in.Name, in.ID, in.ProtocolVersion, in.SessionID = strings.Clone(in.Method), strings.Clone(in.Name),
		strings.Clone(in.ID), strings.Clone(in.ProtocolVersion), strings.Clone(in.SessionID)
	in.Trace = TraceContext{strings.Clone(in.Trace.TraceParent), strings.Clone(in.Trace.TraceState), strings.Clone(in.Trace.Baggage)}
	in.Arguments = slices.Clone(in.Arguments)
	rt.omu.Lock()
	final := rt.final
	if final == nil {
		rt.obs, rt.octx = obs, context.WithoutCancel(ctx)
	}
	rt.omu.Unlock()
	if final != nil {
		rt.end(ctx, obs, *final)
	}
}

// finished records how the task ended and, if its call's observation was
// handed over, ends it.
func (rt *runningTask) finished(e RequestEnd) {
	if rt.end == nil {
		return
	}
	rt.omu.Lock()
	obs, ctx := rt.obs, rt.octx
	if rt.final == nil {
		rt.final = &e
	} else {
		obs = nil // ended already
	}
	rt.obs = nil
	rt.omu.Unlock()
	if obs != nil {
		rt.end(ctx, obs, e)
	}
}

// observeTaskEnd tells the observer how a task-augmented call ended: when
// its task did, as the task reads.
func (s *Server) observeTaskEnd(ctx context.Context, obs *observation, e RequestEnd) {
	e.Duration = time.Since(obs.start)
	defer func() {
		if v := recover(); v != nil {
			s.observerPanicked(ctx, "End", &obs.info, v)
		}
	}()
	s.opts.Observer.End(ctx, &obs.info, e)
}

// taskEnd is how a task that ended in status, with result or errObj,
// reads to an observer.
func taskEnd(status TaskStatus, result, errObj []byte) RequestEnd {
	e := RequestEnd{Task: status}
	switch status {
	case TaskCompleted:
		e.Result = result
		var r struct {
			IsError bool `json:"isError"`
		}
		_ = json.Unmarshal(result, &r)
		e.ToolError = r.IsError
	case TaskFailed:
		var o struct {
			Code    Code   `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(errObj, &o)
		e.ErrorCode, e.ErrorMessage = o.Code, o.Message
	}
	return e
}

func newTasks(o *TaskOptions) *tasks {
	t := &tasks{opts: *o, local: map[string]*runningTask{}}
	if t.opts.TTL <= 0 {
		t.opts.TTL = DefaultTaskTTL
	}
	if t.opts.PollInterval <= 0 {
		t.opts.PollInterval = DefaultTaskPollInterval
	}
	if t.opts.Timeout <= 0 {
		t.opts.Timeout = DefaultTaskTimeout
	}
	t.opts.Timeout = min(t.opts.Timeout, t.opts.TTL)
	if t.opts.Lease <= 0 {
		t.opts.Lease = DefaultTaskLease
	}
	t.opts.Lease = max(t.opts.Lease, minTaskLease)
	if t.opts.MaxRunning <= 0 {
		t.opts.MaxRunning = DefaultMaxRunningTasks
	}
	if t.opts.MaxKept <= 0 {
		t.opts.MaxKept = DefaultMaxKeptTasks
	}
	t.store = t.opts.Store
	if t.store == nil {
		t.store = NewMemoryTaskStore()
	}
	t.caps = TaskCaps{MaxRunning: t.opts.MaxRunning, MaxKept: t.opts.MaxKept}
	return t
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

// errTaskEnded stops an update of a task that ended meanwhile.
var errTaskEnded = errors.New("ferry: task ended")

// unknownTask is the answer for a task id the caller has no task of.
func unknownTask(id string) error {
	return NewError(CodeInvalidParams, "unknown task %q", id)
}

// storeError is the answer when the task store fails: id unknown for
// [ErrTaskNotFound], the store being unavailable otherwise.
func (s *Server) storeError(ctx context.Context, id string, err error) error {
	if errors.Is(err, ErrTaskNotFound) {
		return unknownTask(id)
	}
	s.logError(ctx, "task store failed", "task", id, "err", err)
	return NewError(CodeInternalError, "the task store is unavailable")
}

// storeCtx is the context of the store calls a task's run makes: ctx's
// values, bounded, whatever ended ctx.
func storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
}

// enter records a task run here, and starts the lease renewal and the
// store's signals if they do not run.
func (ts *tasks) enter(rt *runningTask) {
	ts.watch.Do(func() { ts.store.Watch(ts.changed) })
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.local[rt.id] = rt
	if !ts.beating {
		ts.beating = true
		go ts.renew()
	}
}

// leave forgets a task run here.
func (ts *tasks) leave(rt *runningTask) {
	ts.mu.Lock()
	delete(ts.local, rt.id)
	ts.mu.Unlock()
	rt.cancel()
}

// changed is the store's signal that task id changed: a task running
// here that was cancelled, expired or answered elsewhere hears it. The
// store is read on a goroutine of its own, at most one waiting per task.
func (ts *tasks) changed(id string) {
	ts.listeners.changed(id)
	ts.mu.Lock()
	rt := ts.local[id]
	ts.mu.Unlock()
	if rt == nil || rt.dirty.Swap(true) {
		return
	}
	go ts.check(rt)
}

// check reads a task running here from the store: a task that ended
// (cancelled elsewhere) or is gone has its run's context cancelled, and
// a parked one is woken to read its answers.
func (ts *tasks) check(rt *runningTask) {
	rt.dirty.Store(false) // a signal from now on checks again
	ctx, cancel := context.WithTimeout(context.Background(), ts.opts.Lease/3)
	rec, err := ts.store.Get(ctx, rt.owner, rt.id)
	cancel()
	if errors.Is(err, ErrTaskNotFound) || err == nil && rec.Status.Terminal() {
		rt.cancel()
	}
	rt.poke()
}

// poke wakes the task's run if it waits for answers.
func (rt *runningTask) poke() {
	select {
	case rt.wake <- struct{}{}:
	default:
	}
}

// renew renews the lease of every task running here, every third of the
// lease, until none runs. Each renewal reads the task too, so that a
// cancellation whose signal was lost ends its run within a renewal.
func (ts *tasks) renew() {
	tick := time.NewTicker(ts.opts.Lease / 3)
	defer tick.Stop()
	for range tick.C {
		ts.mu.Lock()
		if len(ts.local) == 0 {
			ts.beating = false
			ts.mu.Unlock()
			return
		}
		runs := make([]*runningTask, 0, len(ts.local))
		for _, rt := range ts.local {
			runs = append(runs, rt)
		}
		ts.mu.Unlock()
		for _, rt := range runs {
			ctx, cancel := context.WithTimeout(context.Background(), ts.opts.Lease/3)
			err := ts.store.Update(ctx, rt.owner, rt.id, func(r *TaskRecord) error {
				if r.Status.Terminal() {
					return errTaskEnded
				}
				r.Lease = time.Now().Add(ts.opts.Lease)
				return nil
			})
			cancel()
			if errors.Is(err, errTaskEnded) || errors.Is(err, ErrTaskNotFound) {
				rt.cancel()
			}
			rt.poke()
		}
	}
}

// load returns owner's task id from the store; a task whose lease passed
// (the server running it died) is marked failed first.
func (ts *tasks) load(ctx context.Context, owner, id string) (*TaskRecord, error) {
	t, err := ts.store.Get(ctx, owner, id)
	if err != nil || t.Status.Terminal() || time.Now().Before(t.Lease) {
		return t, err
	}
	err = ts.store.Update(ctx, owner, id, func(r *TaskRecord) error {
		if r.Status.Terminal() || time.Now().Before(r.Lease) {
			return errTaskEnded // settled or renewed meanwhile
		}
		r.fail(time.Now(), "the server running the task stopped", CodeInternalError)
		return nil
	})
	if err != nil && !errors.Is(err, errTaskEnded) {
		return nil, err
	}
	return ts.store.Get(ctx, owner, id)
}

// fail moves r to failed, with an error saying msg.
func (r *TaskRecord) fail(now time.Time, msg string, code Code) {
	e, _ := json.Marshal(struct {
		Code    Code   `json:"code"`
		Message string `json:"message"`
	}{code, msg})
	r.Status, r.Message, r.Error, r.Requests, r.Lease, r.Updated = TaskFailed, msg, e, nil, time.Time{}, now
}

// settle moves owner's task id to a terminal status, unless it is
// terminal already (a cancelled task stays cancelled whatever its handler
// returns).
func (ts *tasks) settle(ctx context.Context, rt *runningTask, status TaskStatus, message string, result, errObj []byte) {
	// The run is forgotten first: the store's signal of this very update
	// has nothing to wake.
	ts.mu.Lock()
	delete(ts.local, rt.id)
	ts.mu.Unlock()
	ctx, cancel := storeCtx(ctx)
	defer cancel()
	end := taskEnd(status, result, errObj)
	_ = ts.store.Update(ctx, rt.owner, rt.id, func(r *TaskRecord) error {
		if r.Status.Terminal() {
			end = taskEnd(r.Status, r.Result, r.Error)
			return errTaskEnded
		}
		r.Status, r.Result, r.Error, r.Requests, r.Lease, r.Updated = status, result, errObj, nil, time.Time{}, time.Now()
		if message != "" {
			r.Message = message
		}
		return nil
	})
	rt.cancel()
	rt.finished(end)
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
	ts := s.tasks
	var answers map[string]json.RawMessage
	if r.carriesAnswers() {
		if err := s.loadModernInput(ctx, r); err != nil {
			return b, err
		}
		answers = r.reply.input.answers
	}
	now := time.Now()
	rec := &TaskRecord{ID: newTaskID(), Owner: ownerOf(ctx), Status: TaskWorking, Created: now, Updated: now,
		Expires: now.Add(ts.opts.TTL), Lease: now.Add(ts.opts.Lease), Answers: answers}
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	rt := &runningTask{id: rec.ID, owner: rec.Owner, cancel: cancel, wake: make(chan struct{}, 1)}
	if s.opts.Observer != nil {
		rt.end = s.observeTaskEnd
	}
	// The run is known here before the store has it, so that no signal
	// of a cancellation is missed.
	ts.enter(rt)
	if err := ts.store.Create(ctx, rec, ts.caps); err != nil {
		ts.leave(rt)
		if errors.Is(err, ErrTooManyTasks) {
			setOutcome(ctx, outcomeLimited, RefusalUnavailable)
			return (&ToolResult{Content: []Content{Text(errTaskCaps.Error())}, IsError: true}).appendMembers(b, false)
		}
		return b, s.storeError(ctx, rec.ID, err)
	}
	// The answer is written before the run starts: it reads working.
	b = s.appendTask(b, rec)
	r.reply.task = true
	if rt.end != nil {
		r.reply.started = rt
	}
	// A run counts as active in its transport's drain: a shutdown gives
	// it the drain's deadline, then cancels it.
	tr := s.taskRun(r)
	d := r.peer.drain
	if d != nil {
		d.enter()
		stop := context.AfterFunc(d.hard, cancel)
		go func() {
			defer d.leave()
			defer stop()
			s.runTask(tctx, rt, tr)
		}()
	} else {
		go s.runTask(tctx, rt, tr)
	}
	if !r.modern {
		b = appendKey(b, "resultType")
		b = append(b, `"task"`...)
	}
	return b, nil
}

// taskRun is what a task's runs of the call are made from: r, without
// its stream, its session or the reply it is being answered with, and
// with the task's bound ([TaskOptions.Timeout]) in place of the call's.
type taskRun struct {
	r request
}

func (s *Server) taskRun(r *request) *taskRun {
	p := *r.params
	p.InputResponses, p.RequestState = nil, ""
	e := *r.target.tool
	e.info.Timeout = s.tasks.opts.Timeout
	tg := r.target
	tg.tool = &e
	return &taskRun{r: request{
		peer: peer{header: r.peer.header, remote: r.peer.remote, host: r.peer.host, drain: r.peer.drain},
		id:   r.id, method: r.method, params: &p, modern: true, version: r.version, caps: r.caps,
		level: levelOff, caller: r.caller, row: r.row, target: tg,
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
func (s *Server) runTask(ctx context.Context, rt *runningTask, tr *taskRun) {
	ts := s.tasks
	defer ts.leave(rt)
	defer func() {
		if tr.r.peer.drain.hardStopped() {
			ts.settle(ctx, rt, TaskCancelled, "the server shut down before the task ended", nil, nil)
		}
	}()
	answers := map[string]json.RawMessage{}
	if rec, err := ts.store.Get(ctx, rt.owner, rt.id); err == nil {
		answers = rec.Answers
	}
	for {
		r := tr.next(ctx, answers)
		out, err := s.runTaskOnce(r)
		if tr.r.peer.drain.hardStopped() {
			return // cancelled by the shutdown, and marked so
		}
		switch {
		case errors.Is(err, errInputPending):
			if failed := r.reply.input.failure(); failed != nil {
				ts.settle(ctx, rt, TaskFailed, "", nil, errorObject(asError(failed)))
				return
			}
			var ok bool
			if answers, ok = s.parkTask(ctx, rt, r.reply.input); !ok {
				ts.settle(ctx, rt, TaskCancelled, "", nil, nil)
				return
			}
			continue
		case err != nil:
			ts.settle(ctx, rt, TaskFailed, "", nil, errorObject(asError(s.protocolError(ctx, "task", rt.id, err))))
		default:
			if len(r.reply.resultMeta) > 0 {
				out = appendMeta(out, r.reply.resultMeta, nil)
			}
			ts.settle(ctx, rt, TaskCompleted, "", append(out, '}'), nil)
		}
		return
	}
}

// errorObject returns e as a JSON-RPC error object.
func errorObject(e *Error) []byte {
	data, _ := json.Marshal(struct {
		Code    Code   `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}{e.Code, e.Message, e.Data})
	return data
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
// answers, which it returns, every answer given so far; false says the
// task ended (cancelled, expired) meanwhile.
func (s *Server) parkTask(ctx context.Context, rt *runningTask, in *inputState) (map[string]json.RawMessage, bool) {
	ts := s.tasks
	in.mu.Lock()
	requests := in.requests
	in.mu.Unlock()
	sctx, cancel := storeCtx(ctx)
	err := ts.store.Update(sctx, rt.owner, rt.id, func(r *TaskRecord) error {
		if r.Status.Terminal() {
			return errTaskEnded
		}
		r.Status, r.Requests, r.Updated = TaskInputRequired, requests, time.Now()
		return nil
	})
	cancel()
	if err != nil {
		return nil, false
	}
	for {
		select {
		case <-rt.wake:
		case <-ctx.Done():
			return nil, false
		}
		sctx, cancel := storeCtx(ctx)
		rec, err := ts.store.Get(sctx, rt.owner, rt.id)
		cancel()
		switch {
		case errors.Is(err, ErrTaskNotFound) || err == nil && rec.Status.Terminal():
			return nil, false
		case err == nil && rec.Status == TaskWorking:
			return rec.Answers, true
		}
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
