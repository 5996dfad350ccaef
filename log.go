package ferry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// defaultLogger is the logger of a server given none: [slog.Default], but
// only from Warn up. The failures masked behind a reference (Error) still
// lead somewhere, while the Info record of every call, which a program
// that chose no logger did not ask for, is dropped.
func defaultLogger() *slog.Logger {
	return slog.New(&minLevel{h: slog.Default().Handler(), min: slog.LevelWarn})
}

// minLevel passes on the records of h at or above min.
type minLevel struct {
	h   slog.Handler
	min slog.Level
}

func (m *minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.h.Enabled(ctx, l)
}

func (m *minLevel) Handle(ctx context.Context, r slog.Record) error { return m.h.Handle(ctx, r) }

func (m *minLevel) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &minLevel{h: m.h.WithAttrs(attrs), min: m.min}
}

func (m *minLevel) WithGroup(name string) slog.Handler {
	return &minLevel{h: m.h.WithGroup(name), min: m.min}
}

// newRef returns a reference that ties what a client is told to the log
// record holding the details.
func newRef() string {
	var id [6]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}

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
	outcomeTimedOut                // the call passed [Limits.CallTimeout]
	outcomeLimited                 // refused by a per-caller limit, without running
)

var outcomeNames = [...]string{"", "ok", "invalid", "refused", "error", "failed", "canceled", "asked", "timeout", "limited"}

// String returns the outcome as the call log writes it.
func (o outcome) String() string { return outcomeNames[o] }

// resultOutcome is the outcome of an IsError result a tool returned
// itself: "invalid" for argument errors ([NewInvalidArgumentsResult]), a
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
func (s *Server) logCall(ctx context.Context, r *request, res *ToolResult, err error, start time.Time, extra ...slog.Attr) {
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
	if p := r.caller; p != nil {
		attrs = append(attrs, slog.String("principal", p.Subject))
		if p.Issuer != "" {
			attrs = append(attrs, slog.String("issuer", p.Issuer))
		}
	}
	if err != nil && o == outcomeFailed {
		attrs = append(attrs, slog.String("err", err.Error()))
	}
	attrs = append(attrs, extra...)
	s.logger.LogAttrs(ctx, slog.LevelInfo, "tool call", attrs...)
}
