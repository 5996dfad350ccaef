package ferry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file holds a tools/call: from the tool [Server.resolve] found to
// the result the model reads, through the per-caller limits, the call's
// deadline ([callCtx]) and the handler chain, whose errors and panics
// become results the same way wherever they come from (see
// [Server.wrapTool]).

// callTool answers tools/call for the tool r names, which the caller may
// see. The handler runs on the request's goroutine, under the call's
// deadline: its context is r's call context, which costs nothing unless
// the handler looks at it (see [callCtx]). The call is answered when the
// handler returns, as net/http answers when its handler does; a result it
// returns without error is kept, however late. Errors were mapped inside
// the chain: only an [*Error] (or a modern handler's question to the
// client) comes out of it. A tool shown for step-up ([ServerOptions.StepUp])
// and a call a per-caller limit refuses get a refusal, without running; a
// call a person must confirm ([ServerOptions.Confirm]) is put to them
// first (confirm.go).
func (s *Server) callTool(ctx context.Context, r *request, b []byte) ([]byte, error) {
	if r.carriesAnswers() {
		if err := s.loadModernInput(ctx, r); err != nil {
			return b, err
		}
	}
	// A tool that supports tasks, on a server that serves them, may start
	// one; every other call goes on without leaving this file.
	if !r.reply.task && r.target.tool.tool.TaskSupport != TaskForbidden && s.tasks != nil {
		if task, err := s.wantsTask(r); err != nil {
			return b, err
		} else if task {
			return s.startTask(ctx, r, b)
		}
	}
	var start time.Time
	logging := s.callLog && s.logger.Enabled(ctx, slog.LevelInfo)
	if logging {
		start = time.Now()
	}
	e := r.target.tool
	res, place := s.admitCall(ctx, r)
	var err error
	if res == nil {
		if place != nil {
			defer s.limits.release(place)
		}
		if e.confirm != nil { // a person confirms the call first (confirm.go)
			if res, err = s.confirmCall(ctx, r); res != nil || err != nil {
				return s.appendCallResult(ctx, r, b, res, err, logging, start)
			}
		}
		if c := s.callContext(ctx, r); c != nil {
			defer c.finish()
			ctx = c
		}
		r.reply.callReq = CallToolRequest{Name: e.tool.Name, Arguments: r.params.Arguments, Tool: &e.info}
		res, err = e.handler(ctx, &r.reply.callReq)
	}
	return s.appendCallResult(ctx, r, b, res, err, logging, start)
}

// admitCall takes the caller's place for a call (see [callLimits.admit]),
// or returns the refusal to answer with instead: a tool shown for step-up
// asks for its missing scopes, a call over a per-caller limit is
// unavailable. place is nil when there are no limits.
func (s *Server) admitCall(ctx context.Context, r *request) (refusal *ToolResult, place *callerState) {
	if r.target.access == accessStepUp {
		setOutcome(ctx, outcomeRefused, RefusalForbidden)
		return NewErrorResult("forbidden: this tool needs the scope(s) " +
			strings.Join(s.stepUpMissing(ctx, r.target.tool.info.Scopes), ", ")), nil
	}
	if s.limits == nil {
		return nil, nil
	}
	st, err := s.limits.admit(s.limits.callerOf(r))
	if err != nil {
		setOutcome(ctx, outcomeLimited, RefusalUnavailable)
		return NewErrorResult(err.Error()), nil
	}
	return nil, st
}

// callContext returns the context a call's handler runs in, with ctx's
// values, under the call's deadline (its tool's [ToolInfo.Timeout], or
// its transport's when nearer) and its transport's shutdown; nil when the
// call has neither, and runs in ctx. The caller finishes it once the
// handler has returned, as the cancel function of [context.WithTimeout]
// would. It lives in r: a call allocates none.
func (s *Server) callContext(ctx context.Context, r *request) *callCtx {
	c := &r.reply.call
	switch d := r.target.tool.info.Timeout; {
	case d > 0:
		c.init(ctx, time.Now().Add(d))
		c.stop = r.peer.drain // a shutdown past its deadline ends the call
	case r.peer.drain != nil:
		c.initStop(ctx, r.peer.drain)
	default:
		return nil
	}
	return c
}

// appendCallResult appends the members of a call's result, or returns the
// error to answer with, and writes the call log's record, after the
// result is encoded, so that it records an encoding failure too.
func (s *Server) appendCallResult(ctx context.Context, r *request, b []byte, res *ToolResult, err error, logging bool, start time.Time) ([]byte, error) {
	if r.inputPending() {
		err = errInputPending
	}
	if err != nil {
		if logging {
			s.logCall(ctx, r, nil, err, start)
		}
		return b, err
	}
	if res == nil {
		res = &ToolResult{Content: []Content{}}
	}
	mark := len(b)
	out, err := res.appendMembers(b, false)
	if err != nil {
		res = s.masked(ctx, r.target.name, err, nil)
		out, _ = res.appendMembers(b[:mark], false)
	}
	var cut *resultCut
	if limit, byClient := resultBudget(r); limit > 0 && len(out)-mark > limit {
		res, cut = s.cutResult(res, limit, len(out)-mark, byClient, r.target.tool.out != nil)
		out, _ = res.appendMembers(b[:mark], false)
	}
	r.reply.resultMeta = res.Meta // written by serve, after the members
	r.reply.toolError = res.IsError
	if logging {
		if cut != nil {
			s.logCall(ctx, r, res, nil, start, cut.logAttr())
		} else {
			s.logCall(ctx, r, res, nil, start)
		}
	}
	return out, nil
}

// masked logs an unexpected failure and returns the result the model sees:
// a sentence with a reference to the log record, never the error itself.
func (s *Server) masked(ctx context.Context, tool string, err error, stack []byte) *ToolResult {
	ref := newRef()
	args := []any{"tool", tool, "ref", ref, "err", err}
	if stack != nil {
		args = append(args, "stack", string(stack))
	}
	s.logError(ctx, "tool failed unexpectedly", args...)
	setOutcome(ctx, outcomeFailed, "")
	return NewErrorResult("the tool failed unexpectedly (ref " + ref + ")")
}

// callCtx is the context of a tool call under [Limits.CallTimeout]:
// its parent's values, its own deadline, and an end when the call returns
// (see [Server.callContext]). It costs nothing unless someone looks at it: Err
// compares the clock with the deadline, and only the first Done or
// AfterFunc (which the context package uses for contexts derived from it)
// makes its channel, arms one timer for the deadline and watches the
// parent's cancellation. It lives inside the call's [request], so that a
// call allocates nothing for it.
type callCtx struct {
	parent   context.Context //nolint:containedctx // a context's parent, as the context package keeps it
	deadline time.Time
	// stop, when not nil, ends the context too (with [context.Canceled])
	// when its shutdown passes its deadline (see [drain]).
	stop *drain

	mu       sync.Mutex // guards the fields below, but noDeadline
	done     chan struct{}
	err      error
	timedOut bool
	// noDeadline says the context has no deadline of its own (see
	// initStop); set before the context is shared, and then only read.
	// It sits here, in the padding after timedOut, so that a request
	// (which holds a callCtx) stays in its allocation size class.
	noDeadline bool
	timer      *time.Timer          // ends the context at the deadline, once watched
	unwatch    func() bool          // stops watching the parent, once watched
	unstop     func() bool          // stops watching stop, once watched
	afters     map[*func()]struct{} // AfterFunc's functions not yet run
}

func newCallCtx(parent context.Context, deadline time.Time) *callCtx {
	c := new(callCtx)
	c.init(parent, deadline)
	return c
}

// init sets a new context's parent and deadline: the parent's, when it is
// nearer.
func (c *callCtx) init(parent context.Context, deadline time.Time) {
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.parent, c.deadline = parent, deadline
}

// initStop makes c a context with parent's deadline and values that also
// ends when stop does: the context of a request served by a transport
// that can shut down. Like a call's, it costs nothing until watched.
func (c *callCtx) initStop(parent context.Context, stop *drain) {
	c.parent, c.stop, c.noDeadline = parent, stop, true
}

// Deadline implements [context.Context].
func (c *callCtx) Deadline() (time.Time, bool) {
	if c.noDeadline {
		return c.parent.Deadline()
	}
	return c.deadline, true
}

// Done implements [context.Context]. The first call makes the channel and
// arms the timer and the parent's watch that close it.
func (c *callCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watchLocked()
	return c.done
}

// Err implements [context.Context]: once the parent ended or the deadline
// passed, the context ends (if no timer did yet) and Err says why.
func (c *callCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkLocked()
	return c.err
}

// checkLocked ends the context if its parent ended or its deadline
// passed. The caller holds c.mu.
func (c *callCtx) checkLocked() {
	if c.err != nil {
		return
	}
	if err := c.parent.Err(); err != nil {
		c.endLocked(err, false)
	} else if c.stop.hardStopped() {
		c.endLocked(context.Canceled, false)
	} else if !c.noDeadline && !time.Now().Before(c.deadline) {
		c.endLocked(context.DeadlineExceeded, true)
	}
}

// watchLocked makes the channel Done returns, closed already if the
// context ended, and otherwise arms the timer of the deadline and watches
// the parent. The caller holds c.mu.
func (c *callCtx) watchLocked() {
	if c.done != nil {
		return
	}
	c.done = make(chan struct{})
	if c.err != nil { // ended before anyone asked for Done
		close(c.done)
		return
	}
	if c.checkLocked(); c.err != nil {
		return // checkLocked ended it, closing c.done
	}
	if !c.noDeadline {
		c.timer = time.AfterFunc(time.Until(c.deadline), c.expire)
	}
	c.unwatch = context.AfterFunc(c.parent, c.parentDone)
	if c.stop != nil {
		c.unstop = context.AfterFunc(c.stop.hard, c.stopped)
	}
}

// stopped ends the context when stop ends.
func (c *callCtx) stopped() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(context.Canceled, false)
	}
}

// expire ends the context at its deadline.
func (c *callCtx) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(context.DeadlineExceeded, true)
	}
}

// parentDone ends the context when its parent ends.
func (c *callCtx) parentDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(c.parent.Err(), false)
	}
}

type callCtxKey struct{}

// Value implements [context.Context]. ([context.Cause] of a call's
// context that ended is its Err, unless its parent was cancelled with a
// cause of its own.)
func (c *callCtx) Value(key any) any {
	if key == (callCtxKey{}) && !c.noDeadline {
		return c
	}
	return c.parent.Value(key)
}

// AfterFunc arranges for f to run on its own goroutine once the context
// has ended, as [context.AfterFunc] does; stop reports whether it stopped
// f from running. The context package calls it for contexts derived from
// c.
func (c *callCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watchLocked(); c.err != nil {
		go f()
		return func() bool { return false }
	}
	if c.afters == nil {
		c.afters = map[*func()]struct{}{}
	}
	key := &f
	c.afters[key] = struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.afters[key]
		delete(c.afters, key)
		return ok
	}
}

// finish ends the context when its call has returned, if nothing ended it
// before, as the cancel function of [context.WithTimeout] does.
func (c *callCtx) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.endLocked(context.Canceled, false)
	}
}

// endLocked ends the context with err: it closes the channel, stops the
// timer and the parent's watch, and runs AfterFunc's functions. The caller
// holds c.mu and checked that the context had not ended.
func (c *callCtx) endLocked(err error, timedOut bool) {
	c.err, c.timedOut = err, timedOut
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.unwatch != nil {
		c.unwatch()
	}
	if c.unstop != nil {
		c.unstop()
	}
	for f := range c.afters {
		go (*f)()
	}
	c.afters = nil
}

// callTimedOut reports whether ctx is (or derives from) the context of a
// call that passed its [Limits.CallTimeout].
func callTimedOut(ctx context.Context) bool {
	c, ok := ctx.Value(callCtxKey{}).(*callCtx)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkLocked()
	return c.timedOut
}

// timedOut is the result of a call past its deadline.
func (s *Server) timedOut(ctx context.Context) *ToolResult {
	setOutcome(ctx, outcomeTimedOut, RefusalUnavailable)
	return NewErrorResult("unavailable: the tool timed out after " + formatTimeout(s.callTimeout(ctx)))
}

// formatTimeout writes d in whole seconds when it is ("60s", not "1m0s").
func formatTimeout(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// wrapTool builds a tool's handler chain: error mapping and recovery
// outermost, then the user's middleware in order, then the handler. So a
// refusal or a panic anywhere in the chain, middleware included, is mapped
// once and the same way. The call log is written around the whole chain,
// by [Server.callTool].
func (s *Server) wrapTool(h ToolHandler) ToolHandler {
	for i := len(s.opts.ToolMiddleware) - 1; i >= 0; i-- {
		h = s.opts.ToolMiddleware[i](h)
	}
	return s.recoverAndMap(h)
}

// recoverAndMap turns what the chain returns into the result the model
// sees: a refusal becomes "code: message", a cancelled call says so,
// OnToolError may map a service's own error, and any other error or a
// panic is masked behind a reference. Only an [*Error], and a modern
// handler's question to the client, come out as errors.
func (s *Server) recoverAndMap(next ToolHandler) ToolHandler {
	return func(ctx context.Context, req *CallToolRequest) (res *ToolResult, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = s.masked(ctx, req.Name, fmt.Errorf("panic: %v", v), debug.Stack()), nil
			}
		}()
		res, err = next(ctx, req)
		if err == nil {
			return res, nil
		}
		return s.mapToolError(ctx, req, err)
	}
}

// mapToolError maps an error from the chain; see [Server.recoverAndMap].
func (s *Server) mapToolError(ctx context.Context, req *CallToolRequest, err error) (*ToolResult, error) {
	if pe := (*Error)(nil); errors.As(err, &pe) {
		return nil, err
	}
	if errors.Is(err, ErrInputRequired) {
		if r := requestFrom(ctx); r != nil && r.inputPending() {
			return nil, err
		}
	}
	if r := refusalResult(ctx, err); r != nil {
		return r, nil
	}
	if r := s.clientResult(ctx, req, err); r != nil {
		return r, nil
	}
	if callTimedOut(ctx) {
		s.logger.WarnContext(ctx, "tool call timed out", "tool", req.Name, "timeout", s.callTimeout(ctx), "err", err)
		return s.timedOut(ctx), nil
	}
	if r := requestFrom(ctx); r != nil && r.peer.drain.hardStopped() && ctx.Err() != nil {
		setOutcome(ctx, outcomeCanceled, RefusalUnavailable)
		return NewErrorResult(shutdownResult), nil
	}
	if ctx.Err() != nil {
		setOutcome(ctx, outcomeCanceled, "")
		return NewErrorResult("canceled: the call was cancelled before the tool finished"), nil
	}
	if s.opts.OnToolError != nil {
		if r := s.opts.OnToolError(ctx, err); r != nil {
			if r.IsError {
				setOutcome(ctx, outcomeRefused, "")
			}
			return r, nil
		}
	}
	return s.masked(ctx, req.Name, err, nil), nil
}

func refusalResult(ctx context.Context, err error) *ToolResult {
	var rf *Refusal
	if !errors.As(err, &rf) {
		return nil
	}
	setOutcome(ctx, outcomeRefused, rf.Code)
	return NewErrorResult(rf.Error())
}

// statelessHint is what a stateless legacy session lacks when a tool asks
// the client something.
const statelessHint = "a stateless legacy HTTP session has no stream for questions to the client: " +
	"set HTTPOptions.Stateful, or use a client that speaks protocol version 2026-07-28"

// clientResult explains to the model a tool that could not ask the client
// something: the client cannot answer questions here, or refused. When a
// stateless legacy session is why, the log says what would help.
func (s *Server) clientResult(ctx context.Context, req *CallToolRequest, err error) *ToolResult {
	var ce *ClientError
	switch {
	case errors.As(err, &ce):
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		return NewErrorResult(fmt.Sprintf("unavailable: the tool asked the client (%s) and it declined: %s", ce.Method, ce.Message))
	case errors.Is(err, ErrNoClientStream), errors.Is(err, ErrConnectionClosed):
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		if r := requestFrom(ctx); r != nil && r.stateless() {
			s.logger.WarnContext(ctx, "tool could not ask the client", "tool", req.Name, "err", err, "hint", statelessHint)
		}
		return NewErrorResult("unavailable: the tool needs to ask the user or the client's model, and this client or session cannot be asked")
	}
	return nil
}

// setOutcome records how the call ended, for the call log.
func setOutcome(ctx context.Context, o outcome, code RefusalCode) {
	if r := requestFrom(ctx); r != nil {
		r.reply.mu.Lock()
		r.reply.outcome, r.reply.refusal = o, code
		r.reply.mu.Unlock()
	}
}
