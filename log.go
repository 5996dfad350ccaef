package ferry

import (
	"context"
	"log/slog"
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
