package ferry

// This file holds every documented default and limit of the server and
// its transports, and the options that set the server's.

import (
	"time"
)

// The defaults of the limits on tool calls (see [ServerOptions]).
const (
	// DefaultCallTimeout is a tool call's deadline when
	// [ServerOptions.CallTimeout] is zero.
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxCallsPerCaller is how many tools/call requests one caller
	// may have in flight when [ServerOptions.MaxCallsPerCaller] is zero.
	DefaultMaxCallsPerCaller = 32
	// DefaultCallRate is the calls per second one caller may make on
	// average when [ServerOptions.CallRate] is zero.
	DefaultCallRate = 50.0
	// DefaultCallBurst is the calls one caller may make at once above the
	// rate when [ServerOptions.CallBurst] is zero.
	DefaultCallBurst = 100
	// MaxTrackedCallers is how many callers the server keeps a count and
	// a bucket for. When that many are tracked, a new caller first makes
	// the server forget the idle ones (no call in flight, bucket full:
	// nothing is lost); if few are idle, new callers share one count and
	// one bucket for up to a second, until more are.
	MaxTrackedCallers = 10_000
	// DefaultMaxJSONDepth is how deeply a request may nest arrays and
	// objects when [ServerOptions.MaxJSONDepth] is zero.
	DefaultMaxJSONDepth = 64
)

// DefaultPageSize is the number of entries a list method returns per page
// when [ServerOptions.PageSize] is zero.
const DefaultPageSize = 500

// DefaultMaxBodyBytes is the largest request body the HTTP handler reads
// when [HTTPOptions.MaxBodyBytes] is zero. ([MaxLineBytes] is stdio's.)
const DefaultMaxBodyBytes = 4 << 20

// DefaultMaxBatchItems is the most messages a 2025-03-26 batch may hold
// when [HTTPOptions.MaxBatchItems] is zero, and on stdio. A larger batch
// is refused whole, before any of it is served.
const DefaultMaxBatchItems = 100

// DefaultMaxBatchReplyBytes is the largest answer to a 2025-03-26 batch
// when [HTTPOptions.MaxBatchReplyBytes] is zero, and on stdio. Once the
// answers reach it, the request whose answer does not fit and every
// request after it are answered with an error saying so, and those after
// it are not served.
const DefaultMaxBatchReplyBytes = 8 << 20

// DefaultSessionTTL is how long a stateless session id stays valid when
// [HTTPOptions.SessionTTL] is zero.
const DefaultSessionTTL = 24 * time.Hour

// DefaultSessionIdleTimeout is how long an idle stateful session lives when
// [MemorySessionStore.IdleTimeout] is zero.
const DefaultSessionIdleTimeout = 30 * time.Minute

// DefaultMaxSessions is the most sessions a [MemorySessionStore] holds
// when its MaxSessions is zero, and so the most stateful sessions an
// [HTTPHandler] keeps open when [HTTPOptions.MaxSessions] is zero.
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
// or in the resourceSubscriptions of one subscriptions/listen. A
// subscription beyond it is refused with an invalid-params error.
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
