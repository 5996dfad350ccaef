package ferry

// This file holds every documented default and limit of the server and
// its transports, and the options that set the server's.

import (
	"time"
)

// The defaults of the limits on tool calls (see [ServerOptions]).
const (
	// DefaultCallTimeout is a tool call's deadline when
	// [Limits.CallTimeout] is zero.
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxCallsPerCaller is how many tools/call requests one caller
	// may have in flight when [Limits.MaxCallsPerCaller] is zero.
	DefaultMaxCallsPerCaller = 32
	// DefaultCallRate is the calls per second one caller may make on
	// average when [Limits.CallRate] is zero.
	DefaultCallRate = 50.0
	// DefaultCallBurst is the calls one caller may make at once above the
	// rate when [Limits.CallBurst] is zero.
	DefaultCallBurst = 100
	// MaxTrackedCallers is how many callers the server keeps a count and
	// a bucket for. When that many are tracked, a new caller first makes
	// the server forget the idle ones (no call in flight, bucket full:
	// nothing is lost); if few are idle, new callers share one count and
	// one bucket for up to a second, until more are.
	MaxTrackedCallers = 10_000
	// DefaultMaxJSONDepth is how deeply a request may nest arrays and
	// objects when [Limits.MaxJSONDepth] is zero.
	DefaultMaxJSONDepth = 64
	// DefaultMaxResultBytes bounds a tool's result when
	// [Limits.MaxResultBytes] is zero: about 25,000 tokens, where Claude
	// Code cuts a tool's output (it warns at 10,000), and well under what
	// other clients we know accept whole.
	DefaultMaxResultBytes = 100_000
)

// DefaultPageSize is the number of entries a list method returns per page
// when [ServerOptions.PageSize] is zero.
const DefaultPageSize = 500

// DefaultMaxBodyBytes is the largest request body the HTTP handler reads
// when [HTTPLimits.MaxBodyBytes] is zero. ([MaxLineBytes] is stdio's.)
const DefaultMaxBodyBytes = 4 << 20

// DefaultMaxBatchItems is the most messages a 2025-03-26 batch may hold
// when [HTTPLimits.MaxBatchItems] is zero, and on stdio. A larger batch
// is refused whole, before any of it is served.
const DefaultMaxBatchItems = 100

// DefaultMaxBatchReplyBytes is the largest answer to a 2025-03-26 batch
// when [HTTPLimits.MaxBatchReplyBytes] is zero, and on stdio. Once the
// answers reach it, the request whose answer does not fit and every
// request after it are answered with an error saying so, and those after
// it are not served.
const DefaultMaxBatchReplyBytes = 8 << 20

// DefaultSessionTTL is how long a stateless session id stays valid when
// [HTTPLimits.SessionTTL] is zero.
const DefaultSessionTTL = 24 * time.Hour

// DefaultSessionIdleTimeout is how long an idle stateful session lives when
// [MemorySessionStore.IdleTimeout] is zero.
const DefaultSessionIdleTimeout = 30 * time.Minute

// DefaultMaxSessions is the most sessions a [MemorySessionStore] holds
// when its MaxSessions is zero, and so the most stateful sessions an
// [HTTPHandler] keeps open when [HTTPLimits.MaxSessions] is zero.
const DefaultMaxSessions = 10000

// MaxRequestsInFlight is the number of requests (a batch counts as one)
// that [Server.Run] serves at once on one connection. While that many
// run, Run reads no further line (cancellations and the client's answers
// included), so a client that sends faster than it is answered waits, as
// a TCP sender does. A request waiting for the client's answer to a
// question ([Elicit] and the like) gives its place up while it waits, so
// that the answer can be read; a question beyond MaxRequestsInFlight
// waiting at once fails instead. At most MaxRequestsInFlight
// subscriptions/listen streams are open at once, apart from these; one
// beyond is refused.
const MaxRequestsInFlight = 256

// MaxLineBytes is the longest line, so the largest message, a stdio or
// [IOTransport] connection reads. A longer line is skipped whole, and the
// server answers it with an invalid-request error.
const MaxLineBytes = 4 << 20

// MaxSubscriptions is the most resources one session may subscribe to:
// with resources/subscribe in a legacy session (stdio or stateful HTTP),
// or in the resourceSubscriptions and taskIds of one subscriptions/listen
// together. A subscription beyond it is refused with an invalid-params
// error.
const MaxSubscriptions = 512

// MaxSubscriptionURIBytes is the longest resource URI a subscription may
// name; a longer one is refused with an invalid-params error.
const MaxSubscriptionURIBytes = 2048

// MaxSubscriptionBytes is the most bytes the URIs of one session's
// subscriptions (or of one listen's resourceSubscriptions) may hold
// together, so that what a session keeps stays small whoever opens it
// (512 URIs of 2 KiB would be a megabyte). A subscription beyond it is
// refused with an invalid-params error.
const MaxSubscriptionBytes = 64 << 10

// NotificationWriteTimeout is how long a change notification (a list
// change or a resource update) may take to reach a client's stream: a
// stdio connection, a stateful session's GET stream or a
// subscriptions/listen stream. A stream whose client does not take one for
// that long is ended, and the server logs it at warn level.
//
// Notifying never waits for a stream: [Server.AddTool],
// [Server.RemoveTools], [Server.NotifyResourceUpdated] and the other
// changes put the notification in each stream's queue and return. A change
// already waiting in a queue is not queued twice, so a queue holds at most
// one notification per list and per subscribed resource.
//
// Over HTTP the timeout needs a ResponseWriter that supports write
// deadlines ([http.ResponseController.SetWriteDeadline]; net/http's does).
// Behind one that does not, a stalled stream keeps its own goroutine until
// the connection dies, but still never holds up the notifier.
//
// A GET stream or a subscriptions/listen sets that deadline for each
// notification and keepalive it writes, and then lifts it, so that a
// stream lasts as long as its client reads it. That replaces any
// [http.Server.WriteTimeout]: once such a stream has written, the
// server's timeout no longer applies to the response, and a stream does
// not end because it has been open that long.
const NotificationWriteTimeout = 10 * time.Second

// ShutdownGrace is how long [ShutdownHTTPServer] lets the http.Server
// finish writing answers once the MCP handler is drained: the answers of
// the calls its Shutdown cancelled at its deadline.
const ShutdownGrace = time.Second

// Limits bound what one caller can make a [Server] do, for
// [ServerOptions.Limits]. The zero value holds every default; each field
// says what its zero and negative values mean.
type Limits struct {
	// CallTimeout bounds each tools/call: the handler's context gets this
	// deadline (or its transport's, when nearer), and a handler that
	// returns an error once it passed makes the model read "unavailable:
	// the tool timed out after 60s" (with the default timeout); a result
	// returned without error is kept, however late. The handler runs on
	// the request's goroutine, and the call is answered when it returns,
	// as net/http answers when its handler does: a handler must heed its
	// context (pass it to database and HTTP clients, and wait in a select
	// on ctx.Done()), since one that ignores it keeps the call, and the
	// caller's place (see MaxCallsPerCaller), until it returns. The deadline costs nothing
	// unless the handler asks its context: a timer is armed only once
	// something waits on ctx.Done() (or derives a cancellable context).
	// The context ends when the call returns, and is cancelled when a
	// shutdown ([HTTPHandler.Shutdown], [Server.Shutdown]) passes its
	// deadline with the call still running. The time a legacy handler
	// spends waiting for the client ([Elicit], [CreateMessage]) counts. A
	// tool's own [Tool.Timeout] replaces it for that tool. If zero,
	// [DefaultCallTimeout]; if negative, calls have no deadline but their
	// transport's.
	CallTimeout time.Duration
	// ConfirmTimeout bounds how long a legacy session's call waits for a
	// person to confirm it (see [ServerOptions.Confirm]), apart from its
	// CallTimeout, which starts once the call is confirmed; a call not
	// answered within it is refused ("declined: the user did not answer
	// ..."). If zero, [DefaultConfirmTimeout].
	ConfirmTimeout time.Duration
	// MaxCallsPerCaller limits the tools/call requests one caller has in
	// flight at once; one beyond it is refused, without running, with
	// "unavailable: too many calls at once: a caller may have 32 running
	// (MaxCallsPerCaller); retry when one returns, or have the server's
	// operator raise the limit (ferry serve: -max-calls-per-caller)". A caller
	// is its [Principal.Issuer] and [Principal.Subject] together; an
	// anonymous HTTP caller is its client IPv4 address or the /64 of its
	// IPv6 address (from the request's RemoteAddr: X-Forwarded-For is not
	// trusted, so behind a proxy every anonymous caller is the proxy, and
	// an authenticator should run in front); every anonymous stdio caller
	// is one. A call keeps its place until its handler returns, past its
	// CallTimeout too, so handlers that ignore their context cannot pile
	// up. If zero, [DefaultMaxCallsPerCaller]; if negative, no limit.
	MaxCallsPerCaller int
	// CallRate is how many tools/call requests per second one caller (as
	// for MaxCallsPerCaller) may make on average, and CallBurst how many
	// at once above that rate: a token bucket. A call over it is refused,
	// without running, with "unavailable: too many calls: a caller may make
	// 50 a second, bursts of 100 (CallRate, CallBurst); retry in 2s, or
	// have the server's operator raise the limit (ferry serve: -call-rate,
	// -call-burst)".
	// The server tracks at most [MaxTrackedCallers] callers; beyond them,
	// new callers share one bucket until idle callers are forgotten. If
	// CallRate is zero, [DefaultCallRate]; if negative, no rate limit. If
	// CallBurst is zero or less, [DefaultCallBurst].
	CallRate  float64
	CallBurst int
	// MaxJSONDepth limits how deeply a request (an HTTP body, a stdio
	// line, a batch's array counting as a level) nests arrays and
	// objects; a deeper one is refused with a parse error (-32700, HTTP
	// 400) before it is decoded. The same scan refuses, as an invalid
	// request, an envelope that repeats a member or carries a case variant
	// of one ("Method"), which a decoder might take for it. If zero,
	// [DefaultMaxJSONDepth]; it cannot be turned off.
	MaxJSONDepth int
	// MaxResultBytes bounds each tools/call result: its content blocks and
	// structured content together, in bytes as sent (JSON escapes
	// included; a typed tool's result holds its JSON twice, as structured
	// content and as text). A result over it is never sent whole, and
	// never cut inside a JSON value: a list-shaped structured result (an
	// object with one array member and a boolean hasMore, at its top or
	// in an object member, as an entity list's paging) keeps its first
	// whole items, with hasMore set, so that paging goes on; other
	// structured content is left out (a tool with an output schema then
	// answers with isError, since a client checks a result without it
	// against the schema); the text is cut at a character and ends with a
	// notice the model can act on ("[the result was cut at 24,000 of
	// 310,000 characters to fit the result budget of 100,000 bytes; ask
	// for less: ...]"); other blocks that do not fit are left out. The
	// call log's record of the call holds a "cut" group saying what was
	// cut. A tool's own [Tool.MaxResultBytes] replaces it, and a client
	// may ask for less ([MetaMaxResultBytes]). A result within it costs
	// one comparison. If zero, [DefaultMaxResultBytes]; if negative, no
	// bound but the client's.
	MaxResultBytes int
}

// HTTPLimits bound what one HTTP request or session may hold, for
// [HTTPOptions.Limits]. The zero value holds every default.
type HTTPLimits struct {
	// MaxBodyBytes limits a request body. If zero, [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// MaxBatchItems limits the messages of a 2025-03-26 batch. If zero,
	// [DefaultMaxBatchItems].
	MaxBatchItems int
	// MaxBatchReplyBytes limits the answer to a 2025-03-26 batch. If zero,
	// [DefaultMaxBatchReplyBytes].
	MaxBatchReplyBytes int
	// MaxSessions limits the stateful sessions open at once in the default
	// session store: an initialize beyond it is refused (HTTP 503) until
	// sessions end or expire. If zero, [DefaultMaxSessions]. A SessionStore
	// given above enforces its own limit, by returning
	// [ErrTooManySessions] from Create.
	MaxSessions int
	// SessionTTL is how long a stateless session id stays valid. If zero,
	// [DefaultSessionTTL] is used.
	SessionTTL time.Duration
}
