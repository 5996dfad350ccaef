package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

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

// clientCaps is what the client declared it can do.
type clientCaps struct {
	sampling    bool
	elicitation bool
	roots       bool
}

func parseClientCaps(raw json.RawMessage) clientCaps {
	var c clientCaps
	if len(raw) == 0 {
		return c
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		_, c.sampling = m["sampling"]
		_, c.elicitation = m["elicitation"]
		_, c.roots = m["roots"]
	}
	return c
}

// request is one client request being served: everything a handler may
// reach through its context.
type request struct {
	srv    *Server
	id     json.RawMessage
	method string
	tool   string // the tool called, for tools/call
	modern bool
	// toolError says a tools/call's result has isError set, for
	// [ServerOptions.Observer].
	toolError bool
	version   string
	caps      clientCaps
	session   string
	header    http.Header
	remote    string // the HTTP client's address (RemoteAddr), or ""
	host      string // the HTTP request's Host, or ""

	// level is the log threshold for this request.
	level LogLevel
	// progressToken is the caller's _meta.progressToken, or nil.
	progressToken json.RawMessage

	// out sends messages on the request's stream; nil when there is none.
	out outbound
	// calls routes the replies to server-to-client requests; nil when
	// replies cannot reach this replica.
	calls *pendingCalls
	// state is the legacy session or connection, for logging/setLevel and
	// subscriptions; nil when nothing is kept.
	state legacyState
	// drain is the shutdown state of the request's transport: its closing
	// channel is closed when the transport shuts down (or a stdio input
	// ends), and long-lived requests (subscriptions/listen) end then. Nil
	// when the transport cannot shut down.
	drain *drain
	// stateless marks a legacy HTTP session that keeps nothing.
	stateless bool
	// resultType and resultMeta are what a modern answer says besides its
	// result: its type when not "complete", and _meta entries besides
	// serverInfo.
	resultType string
	resultMeta map[string]any
	// failed is the code of the error the request was answered with, or 0.
	failed Code
	// places are the places in flight of the request's connection, of
	// which it holds a running one (stdio; nil elsewhere): it gives it up
	// while it waits for the client's answer (see [request.waitForClient]).
	places *places
	// waiting counts the questions waiting for the client's answer, and
	// gaveUp says the running place was traded for a waiting one; guarded
	// by mu.
	waiting int
	gaveUp  bool
	// input is the state of a modern multi round-trip request.
	input  *inputState
	inputs inputState // what input points to, so that no call allocates one
	// call is a tools/call's context under [ServerOptions.CallTimeout],
	// and callReq what its handler is given, here so that a call
	// allocates neither.
	call    callCtx
	callReq CallToolRequest
	// watch is a subscriptions/listen's watcher when it was registered as
	// the request was read (stdio), so that it holds before any later
	// request of the connection is served; nil otherwise.
	watch *watcher

	mu           sync.Mutex // guards done, lastProgress, outcome, refusal, waiting and gaveUp
	outcome      outcome
	refusal      RefusalCode
	done         bool
	lastProgress float64
	sentProgress bool
}

// peer is what a transport knows of where a request came from. Each
// field is optional; see [request] for what each one means.
type peer struct {
	out    outbound
	calls  *pendingCalls
	header http.Header
	remote string
	host   string
	watch  *watcher
	places *places
	drain  *drain
}

// newRequest builds the request of message m, received from p. Its era
// and version are not known yet: [Server.checkModern] fills them for a
// modern request, [request.join] for a legacy session's.
func (s *Server) newRequest(m *jsonrpc.Message, p peer) *request {
	return &request{srv: s, id: m.ID, method: m.Method, out: p.out, calls: p.calls,
		header: p.header, remote: p.remote, host: p.host, watch: p.watch, places: p.places, drain: p.drain}
}

// legacySession is what a request of a legacy session learns from it:
// what a stdio connection holds, or what an HTTP session id resolves to
// (see [HTTPHandler.legacySession]). state is nil for a stateless HTTP
// session, which keeps nothing.
type legacySession struct {
	id      string
	version string
	caps    clientCaps
	level   LogLevel
	state   legacyState
}

// join makes r a request of the legacy session ls.
func (r *request) join(ls legacySession) {
	r.session, r.version, r.caps, r.level, r.state = ls.id, ls.version, ls.caps, ls.level, ls.state
	r.stateless = ls.state == nil
}

type requestKey struct{}

func withRequest(ctx context.Context, r *request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

func requestFrom(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// closing returns the channel closed when the request's transport shuts
// down, or nil.
func (r *request) closing() <-chan struct{} {
	if r.drain == nil {
		return nil
	}
	return r.drain.closing
}

// finish marks the request answered: nothing more is sent for it.
func (r *request) finish() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}

// notify sends a notification on the request's stream.
func (r *request) notify(method string, params any) error {
	if r.out == nil {
		return ErrNoClientStream
	}
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return ErrNoClientStream
	}
	return r.out.send(jsonrpc.AppendRequest(nil, nil, method, data))
}

// CallInfo describes the request a handler is serving.
type CallInfo struct {
	// Method is the JSON-RPC method, such as "tools/call".
	Method string
	// Tool is the name of the tool called, for tools/call.
	Tool string
	// ProtocolVersion is the version the request speaks.
	ProtocolVersion string
	// SessionID is the legacy session's id, or empty.
	SessionID string
	// Header holds the HTTP request's headers, or nil on stdio.
	Header http.Header
	// Host is the HTTP request's Host (which net/http keeps out of
	// Header), or empty on stdio.
	Host string
	// ClientCapabilities is what the client declared it can answer (at
	// initialize in legacy sessions, in each request's _meta in the modern
	// era). A handler may read it to ask only what the client can answer.
	ClientCapabilities ClientCapabilities
}

// CallInfoFromContext returns the details of the request ctx belongs to,
// and false when ctx is not a handler's context.
func CallInfoFromContext(ctx context.Context) (CallInfo, bool) {
	r := requestFrom(ctx)
	if r == nil {
		return CallInfo{}, false
	}
	return CallInfo{Method: r.method, Tool: r.tool, ProtocolVersion: r.version, SessionID: r.session, Header: r.header,
		Host: r.host, ClientCapabilities: r.caps.exported()}, true
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
	if r == nil || r.progressToken == nil {
		return nil
	}
	r.mu.Lock()
	if r.sentProgress && p.Progress <= r.lastProgress {
		r.mu.Unlock()
		return fmt.Errorf("ferry: progress must increase: %v after %v", p.Progress, r.lastProgress)
	}
	r.sentProgress, r.lastProgress = true, p.Progress
	r.mu.Unlock()
	b := append([]byte(`{"progressToken":`), r.progressToken...)
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

// NotifyLog sends a log notification to the caller when level is at or above the
// threshold the client chose (logging/setLevel in legacy sessions, the
// request's logLevel in the modern era). data is any JSON value; logger
// names the source and may be empty. Logs must not carry secrets.
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

// legacyState is what a legacy session or stdio connection remembers.
// Its methods return an error to answer the request with.
type legacyState interface {
	setLevel(ctx context.Context, l LogLevel) error
	subscribe(ctx context.Context, uri string, on bool) error
}

// waitForClient gives up the request's running place while it waits for
// the client's answer to a question, taking a waiting place instead, so
// that the connection reads on and the answer can arrive; the returned
// func takes a running place again. Several questions may wait at once:
// the first trades the place, and the last trades it back. When every
// waiting place is taken, the question fails at once with an error
// wrapping [ErrNoClientStream]: keeping the running place instead could
// leave every place held by requests whose answers the connection no
// longer reads.
func (r *request) waitForClient() (answered func(), err error) {
	if r.places == nil {
		return func() {}, nil
	}
	r.mu.Lock()
	r.waiting++
	first := r.waiting == 1
	r.mu.Unlock()
	if first {
		select {
		case r.places.waiting <- struct{}{}:
			<-r.places.running
			r.mu.Lock()
			r.gaveUp = true
			r.mu.Unlock()
		default:
			r.mu.Lock()
			r.waiting--
			r.mu.Unlock()
			return nil, fmt.Errorf("ferry: %d questions already wait for this client's answers: %w", MaxRequestsInFlight, ErrNoClientStream)
		}
	}
	return func() {
		r.mu.Lock()
		r.waiting--
		back := r.waiting == 0 && r.gaveUp
		if back {
			r.gaveUp = false
		}
		r.mu.Unlock()
		if back {
			r.places.running <- struct{}{}
			<-r.places.waiting
		}
	}, nil
}
