package ferry

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
)

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
