package ferry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
)

// outcome is how a tool call ended, as the call log records it.
type outcome string

// The outcomes of a tool call.
const (
	outcomeOK      outcome = "ok"
	outcomeInvalid outcome = "invalid" // the arguments broke the input schema
	outcomeRefused outcome = "refused" // a refusal; the log adds its code
	outcomeFailed  outcome = "failed"  // an unexpected error or a panic
	outcomeAsked   outcome = "asked"   // it asked the client and awaits the retry (2026-07-28)
)

// wrapTool builds a tool's handler chain: the call log, then the user's
// middleware in order, then recovery and error mapping, then the handler.
func (s *Server) wrapTool(h ToolHandler) ToolHandler {
	h = s.recovering(h)
	for i := len(s.opts.ToolMiddleware) - 1; i >= 0; i-- {
		h = s.opts.ToolMiddleware[i](h)
	}
	return s.callLog(h)
}

// recovering turns what a handler returns into the result the model sees:
// a refusal becomes "code: message", OnToolError may map a service's own
// error, and any other error or a panic is masked behind a reference.
func (s *Server) recovering(next ToolHandler) ToolHandler {
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
		var pe *Error
		if errors.As(err, &pe) || errors.Is(err, ErrInputRequired) {
			return nil, err
		}
		if r := refusalResult(ctx, err); r != nil {
			return r, nil
		}
		if r := clientResult(ctx, err); r != nil {
			return r, nil
		}
		if s.opts.OnToolError != nil {
			if r := s.opts.OnToolError(err); r != nil {
				if r.IsError {
					setOutcome(ctx, outcomeRefused, "")
				}
				return r, nil
			}
		}
		return s.masked(ctx, req.Name, err, nil), nil
	}
}

func refusalResult(ctx context.Context, err error) *ToolResult {
	var rf *Refusal
	if !errors.As(err, &rf) {
		return nil
	}
	setOutcome(ctx, outcomeRefused, rf.Code)
	return ErrorResult(rf.Error())
}

// clientResult explains to the model a tool that could not ask the client
// something: the client cannot answer questions here, or refused.
func clientResult(ctx context.Context, err error) *ToolResult {
	var ce *ClientError
	switch {
	case errors.As(err, &ce):
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		return ErrorResult(fmt.Sprintf("unavailable: the tool asked the client (%s) and it declined: %s", ce.Method, ce.Message))
	case errors.Is(err, ErrNoClientStream), errors.Is(err, ErrConnectionClosed):
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		return ErrorResult("unavailable: the tool needs to ask the user or the client's model, and this client or session cannot be asked")
	}
	return nil
}

// setOutcome records how the call ended, for the call log.
func setOutcome(ctx context.Context, o outcome, code RefusalCode) {
	if r := requestFrom(ctx); r != nil {
		r.mu.Lock()
		r.outcome, r.refusal = o, code
		r.mu.Unlock()
	}
}

// callLog writes one record per call: tool, outcome, duration, session and
// principal.
func (s *Server) callLog(next ToolHandler) ToolHandler {
	return func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
		if !s.logger.Enabled(ctx, slog.LevelInfo) {
			return next(ctx, req)
		}
		start := time.Now()
		res, err := next(ctx, req)
		outcome, code := outcomeOK, RefusalCode("")
		if r := requestFrom(ctx); r != nil {
			r.mu.Lock()
			if r.outcome != "" {
				outcome, code = r.outcome, r.refusal
			}
			r.mu.Unlock()
		}
		switch {
		case errors.Is(err, ErrInputRequired):
			outcome = outcomeAsked
		case err != nil:
			outcome = outcomeFailed
		}
		attrs := []slog.Attr{slog.String("tool", req.Name), slog.String("outcome", string(outcome)),
			slog.Duration("duration", time.Since(start))}
		if code != "" {
			attrs = append(attrs, slog.String("code", string(code)))
		}
		if info, ok := CallInfoFromContext(ctx); ok && info.SessionID != "" {
			attrs = append(attrs, slog.String("session", info.SessionID))
		}
		if p, ok := PrincipalFromContext(ctx); ok {
			attrs = append(attrs, slog.String("principal", p))
		}
		s.logger.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
		return res, err
	}
}
