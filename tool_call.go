package ferry

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// This file holds a tools/call: from the tool [Server.resolve] found to
// the result the model reads, through the per-caller limits, the call's
// deadline and the handler chain (see [Server.wrapTool]).

// callTool answers tools/call for the tool r names, which the caller may
// see. The handler runs on the request's goroutine, under the call's
// deadline: its context is r's call context, which costs nothing unless
// the handler looks at it (see [callCtx]). The call is answered when the
// handler returns, as net/http answers when its handler does; a result it
// returns without error is kept, however late. Errors were mapped inside
// the chain: only an [*Error] (or a modern handler's question to the
// client) comes out of it. A tool shown for step-up ([ServerOptions.StepUp])
// and a call a per-caller limit refuses get a refusal, without running.
func (s *Server) callTool(ctx context.Context, r *request, b []byte) ([]byte, error) {
	if err := s.loadModernInput(ctx, r); err != nil {
		return b, err
	}
	var start time.Time
	logging := s.logger.Enabled(ctx, slog.LevelInfo)
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
		if c := s.callContext(ctx, r); c != nil {
			defer c.finish()
			ctx = c
		}
		r.reply.callReq = CallToolRequest{Name: e.tool.Name, Arguments: r.params.Arguments, Tool: e.info}
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
	st, err := s.limits.admit(callerOf(ctx, r))
	if err != nil {
		setOutcome(ctx, outcomeLimited, RefusalUnavailable)
		return NewErrorResult(err.Error()), nil
	}
	return nil, st
}

// callContext returns the context a call's handler runs in, with ctx's
// values, under the call's deadline ([Limits.CallTimeout], or its
// transport's when nearer) and its transport's shutdown; nil when the
// call has neither, and runs in ctx. The caller finishes it once the
// handler has returned, as the cancel function of [context.WithTimeout]
// would. It lives in r: a call allocates none.
func (s *Server) callContext(ctx context.Context, r *request) *callCtx {
	c := &r.reply.call
	switch {
	case s.timeout > 0:
		c.init(ctx, time.Now().Add(s.timeout))
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
	r.reply.resultMeta = res.Meta // written by serve, after the members
	r.reply.toolError = res.IsError
	if logging {
		s.logCall(ctx, r, res, nil, start)
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
