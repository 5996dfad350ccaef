package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
)

// This file holds what a handler tells the caller while it works: its
// progress and its logs, on the request's stream.

// LogLevel is the severity of a log notification, as in RFC 5424.
type LogLevel int8

// The log levels, least severe first.
const (
	LevelDebug LogLevel = iota
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
	levelOff // no log notifications
)

var levelNames = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// String returns the level's protocol name.
func (l LogLevel) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "off"
}

func parseLevel(s string) (LogLevel, bool) {
	for i, n := range levelNames {
		if n == s {
			return LogLevel(i), true
		}
	}
	return levelOff, false
}

// Progress is a progress notification's content.
type Progress struct {
	// Progress is how far the work is; it must grow with every notification.
	Progress float64
	// Total is the amount of work, or zero when unknown.
	Total float64
	// Message says what is happening, for a person.
	Message string
}

// NotifyProgress tells the caller how far the request has come, if the
// caller asked for progress (sent a progress token); otherwise it does
// nothing. Progress must grow from one notification to the next: a value
// that does not is not sent, and an error says so.
func NotifyProgress(ctx context.Context, p Progress) error {
	r := requestFrom(ctx)
	if r == nil || r.params.Meta.ProgressToken == nil {
		return nil
	}
	rp := &r.reply
	rp.mu.Lock()
	if rp.sentProgress && p.Progress <= rp.lastProgress {
		rp.mu.Unlock()
		return fmt.Errorf("ferry: progress must increase: %v after %v", p.Progress, rp.lastProgress)
	}
	rp.sentProgress, rp.lastProgress = true, p.Progress
	rp.mu.Unlock()
	b := append([]byte(`{"progressToken":`), r.params.Meta.ProgressToken...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendFloat(b, p.Progress, 'g', -1, 64)
	if p.Total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendFloat(b, p.Total, 'g', -1, 64)
	}
	b = appendOptString(b, "message", p.Message)
	b = append(b, '}')
	return r.notify("notifications/progress", json.RawMessage(b))
}

// NotifyLog sends a log notification to the caller when level is at or
// above the threshold the client chose (logging/setLevel in legacy
// sessions, the request's logLevel in the modern era). data is any JSON
// value; logger names the source and may be empty. Logs must not carry
// secrets.
func NotifyLog(ctx context.Context, level LogLevel, logger string, data any) error {
	r := requestFrom(ctx)
	if r == nil || level < r.level || level >= levelOff {
		return nil
	}
	return r.notify("notifications/message", struct {
		Level  string `json:"level"`
		Logger string `json:"logger,omitempty"`
		Data   any    `json:"data"`
	}{level.String(), logger, data})
}

// outbound sends one message toward the client on a request's stream.
type outbound interface {
	send(msg []byte) error
}

// setLevel answers logging/setLevel in a legacy session: the level of
// the logs it hears from then on.
func (s *Server) setLevel(ctx context.Context, r *request, b []byte) ([]byte, error) {
	l, ok := parseLevel(r.params.Level)
	if !ok {
		return b, NewError(CodeInvalidParams, "unknown log level %q: use debug, info, notice, warning, error, critical, alert or emergency", r.params.Level)
	}
	return b, r.peer.state.setLevel(ctx, l)
}
