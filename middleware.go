package ferry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"
)

// outcome is how a tool call ended, as the call log records it.
type outcome uint8

// The outcomes of a tool call.
const (
	outcomeNone     outcome = iota // not known yet
	outcomeOK                      // a result
	outcomeInvalid                 // the arguments broke the input schema
	outcomeRefused                 // a refusal; the log adds its code
	outcomeError                   // the tool returned an IsError result of its own
	outcomeFailed                  // an unexpected error, a panic, or a protocol error
	outcomeCanceled                // the call's context ended before the tool did
	outcomeAsked                   // it asked the client and awaits the retry (2026-07-28)
	outcomeTimedOut                // the call passed [ServerOptions.CallTimeout]
	outcomeLimited                 // refused by a per-caller limit, without running
)

var outcomeNames = [...]string{"", "ok", "invalid", "refused", "error", "failed", "canceled", "asked", "timeout", "limited"}

// String returns the outcome as the call log writes it.
func (o outcome) String() string { return outcomeNames[o] }

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
		s.logger.WarnContext(ctx, "tool call timed out", "tool", req.Name, "timeout", s.timeout, "err", err)
		return s.timedOut(ctx), nil
	}
	if r := requestFrom(ctx); r != nil && r.peer.drain.hardStopped() && ctx.Err() != nil {
		setOutcome(ctx, outcomeCanceled, RefusalUnavailable)
		return ErrorResult(shutdownResult), nil
	}
	if ctx.Err() != nil {
		setOutcome(ctx, outcomeCanceled, "")
		return ErrorResult("canceled: the call was cancelled before the tool finished"), nil
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
	return ErrorResult(rf.Error())
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
		return ErrorResult(fmt.Sprintf("unavailable: the tool asked the client (%s) and it declined: %s", ce.Method, ce.Message))
	case errors.Is(err, ErrNoClientStream), errors.Is(err, ErrConnectionClosed):
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		if r := requestFrom(ctx); r != nil && r.stateless() {
			s.logger.WarnContext(ctx, "tool could not ask the client", "tool", req.Name, "err", err, "hint", statelessHint)
		}
		return ErrorResult("unavailable: the tool needs to ask the user or the client's model, and this client or session cannot be asked")
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

// resultOutcome is the outcome of an IsError result a tool returned
// itself: "invalid" for argument errors ([InvalidArgumentsResult]), a
// refusal when its text leads with a refusal code ("not-found: ...", as
// layers that return results, not errors, write them), else "error".
func resultOutcome(res *ToolResult) (outcome, RefusalCode) {
	if len(res.Content) == 0 {
		return outcomeError, ""
	}
	t, ok := res.Content[0].(*TextContent)
	if !ok {
		return outcomeError, ""
	}
	if strings.HasPrefix(t.Text, "invalid arguments:") {
		return outcomeInvalid, ""
	}
	head, _, ok := strings.Cut(t.Text, ": ")
	if !ok {
		return outcomeError, ""
	}
	switch c := RefusalCode(head); c {
	case RefusalNotFound, RefusalConflict, RefusalForbidden, RefusalInvalid, RefusalUnavailable:
		return outcomeRefused, c
	}
	return outcomeError, ""
}

// logCall writes the call log's record of one call: tool, outcome (with
// the refusal code), duration, session and principal. res is the result
// sent, or nil when the call was answered with err (a protocol error, or
// a question to the client). A cancelled call is recorded at Info level,
// as every call is: the client chose to stop it. The caller checks that
// the logger takes Info records.
func (s *Server) logCall(ctx context.Context, r *request, res *ToolResult, err error, start time.Time) {
	r.reply.mu.Lock()
	o, code := r.reply.outcome, r.reply.refusal
	r.reply.mu.Unlock()
	switch {
	case errors.Is(err, errInputPending):
		o, code = outcomeAsked, ""
	case err != nil:
		o, code = outcomeFailed, ""
	case o != outcomeNone:
	case res.IsError:
		o, code = resultOutcome(res)
	default:
		o = outcomeOK
	}
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("tool", r.target.name), slog.String("outcome", o.String()),
		slog.Duration("duration", time.Since(start)))
	if code != "" {
		attrs = append(attrs, slog.String("code", string(code)))
	}
	if r.peer.session != "" {
		attrs = append(attrs, slog.String("session", r.peer.session))
	}
	if p, ok := PrincipalFromContext(ctx); ok {
		attrs = append(attrs, slog.String("principal", p.Subject))
		if p.Issuer != "" {
			attrs = append(attrs, slog.String("issuer", p.Issuer))
		}
	}
	if err != nil && o == outcomeFailed {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
}
