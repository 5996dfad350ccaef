package client

import "time"

// The defaults of [Limits], used where a field is zero.
const (
	// DefaultMaxPages is how many pages a List method reads at most.
	DefaultMaxPages = 100
	// DefaultMaxResponseBytes bounds one message from the server.
	DefaultMaxResponseBytes = 8 << 20
	// DefaultMaxInputRounds bounds the rounds of a 2026-07-28 request that
	// the server answers with input_required.
	DefaultMaxInputRounds = 10
	// DefaultMaxStreamMessages is how many messages a server may send
	// while one request waits for its answer.
	DefaultMaxStreamMessages = 10000
	// DefaultIdleTimeout is how long a request waits for a message from
	// the server.
	DefaultIdleTimeout = 5 * time.Minute
	// DefaultCloseTimeout bounds the waits on a server that is leaving.
	DefaultCloseTimeout = 3 * time.Second
)

// Limits bound what a server can make a [Client] read and wait for, for
// [Options.Limits]. The zero value holds every default; each field says
// what its zero value means.
type Limits struct {
	// MaxPages limits the pages a List method reads. If zero,
	// [DefaultMaxPages].
	MaxPages int
	// MaxResponseBytes limits one message from the server. If zero,
	// [DefaultMaxResponseBytes].
	MaxResponseBytes int64
	// MaxInputRounds limits the input_required rounds of one request. If
	// zero, [DefaultMaxInputRounds].
	MaxInputRounds int
	// MaxStreamMessages limits the messages the server sends while one
	// request waits for its answer (notifications, its own requests,
	// answers to other ids, SSE events without data). If zero,
	// [DefaultMaxStreamMessages].
	MaxStreamMessages int
	// IdleTimeout bounds how long a request waits without a message from
	// the server: its answer, or a notification, request or SSE event
	// (a keepalive) while it is answered. The clock stops while the
	// client answers a question of the server (Elicit, CreateMessage,
	// ListRoots). A request given up is cancelled as a cancelled context
	// cancels it. If zero, [DefaultIdleTimeout]; if negative, only the
	// context bounds the wait.
	IdleTimeout time.Duration
	// CloseTimeout bounds how long the client waits on a server that is
	// leaving: for the notifications/cancelled of a call given up (sent
	// in the background: the call itself returns when its context ends),
	// and in Close for those notices, the DELETE that ends a legacy HTTP
	// session and a command's exit once its stdin is closed, after which
	// the command is killed. If zero, [DefaultCloseTimeout].
	CloseTimeout time.Duration
}

// fill sets the defaults of the fields left zero (or negative, where that
// means nothing).
func (l *Limits) fill() {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxResponseBytes <= 0 {
		l.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if l.MaxInputRounds <= 0 {
		l.MaxInputRounds = DefaultMaxInputRounds
	}
	if l.MaxStreamMessages <= 0 {
		l.MaxStreamMessages = DefaultMaxStreamMessages
	}
	if l.IdleTimeout == 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.CloseTimeout <= 0 {
		l.CloseTimeout = DefaultCloseTimeout
	}
}
