package ferry

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

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

// keepaliveInterval is how often a long-lived SSE stream (the GET stream, a
// subscriptions/listen) gets a comment line when nothing else is sent.
const keepaliveInterval = 25 * time.Second

// DefaultSessionTTL is how long a stateless session id stays valid when
// [HTTPOptions.SessionTTL] is zero.
const DefaultSessionTTL = 24 * time.Hour

// HTTPOptions configures an [HTTPHandler]. The zero value serves stateless
// sessions with the security checks on.
type HTTPOptions struct {
	// Stateful keeps legacy sessions in SessionStore, which server-to-client
	// requests (sampling, elicitation, roots), logging/setLevel, resource
	// subscriptions and the GET stream need. If false, a legacy session id
	// is a signed token any replica can check, and nothing is kept per
	// client. The modern era is stateless either way.
	Stateful bool
	// SessionStore keeps stateful sessions; it is not used unless Stateful
	// is set. If nil, a [MemorySessionStore] with the default idle timeout
	// is used.
	SessionStore SessionStore
	// SessionTTL is how long a stateless session id stays valid. If zero,
	// [DefaultSessionTTL] is used.
	SessionTTL time.Duration
	// AllowedHosts lists the Host header values (host or host:port) served
	// besides loopback ones ("localhost" and loopback IPs); "*" allows any.
	// Requests for other hosts get 403, which defeats DNS rebinding. Hosts
	// match case-insensitively and without a trailing dot ("LOCALHOST",
	// "localhost." and "localhost" are one host); an entry without a port
	// matches any port.
	AllowedHosts []string
	// AllowedOrigins lists the browser origins ("https://app.example.com")
	// allowed besides the request's own; "*" allows any. An Origin header
	// is the request's own when its host and port are those of the Host
	// header (the scheme is not compared, for proxies that terminate TLS).
	// Any other Origin gets 403, loopback ones included: a page on
	// http://localhost:3000 is another app, and may not call a server on
	// localhost:8080 unless listed. Entries match case-insensitively, with
	// default ports implied. A request without an Origin header is not
	// from a browser page and is not checked.
	AllowedOrigins []string
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
	// StreamResponses answers every request as an SSE stream when the
	// client accepts one. If false, a request is answered with plain JSON
	// unless its handler sends a message (progress, a log, a question to the
	// client) before the result, which turns the answer into a stream.
	// A modern (2026-07-28) stream opens with its first message or its
	// response, since an error the spec gives an HTTP status (404 for an
	// unknown method, 400 for a missing client capability) is sent as
	// plain JSON with that status; a legacy stream opens at once.
	// Legacy streams of version 2025-11-25 and later start with a priming
	// event (an id, a retry field and no data).
	StreamResponses bool
}

// HTTPHandler serves MCP over Streamable HTTP at whatever path it is
// mounted on, to clients of both eras. It is safe for concurrent use.
type HTTPHandler struct {
	srv     *Server
	opts    HTTPOptions
	store   SessionStore
	maxBody int64
	ttl     time.Duration
	batch   batchLimits

	liveMu sync.Mutex              // guards live
	live   map[string]*liveSession // stateful sessions with requests or streams open
}

// NewHTTPHandler returns a handler serving s. opts may be nil; it is copied.
// It panics with the problems [Server.Check] reports, so that a server with
// a misdeclared tool never starts: a server built from data should call
// Check first and report its error.
func NewHTTPHandler(s *Server, opts *HTTPOptions) *HTTPHandler {
	if err := s.startServing(); err != nil {
		panic("ferry: the server's start-up check failed:\n" + err.Error()) //nolint:forbidigo // documented: a misdeclared server must not start
	}
	h := &HTTPHandler{srv: s, live: map[string]*liveSession{}}
	if opts != nil {
		h.opts = *opts
	}
	h.store = h.opts.SessionStore
	if h.store == nil && h.opts.Stateful {
		h.store = &MemorySessionStore{MaxSessions: h.opts.MaxSessions}
	}
	h.batch = batchLimits{items: h.opts.MaxBatchItems, replyBytes: h.opts.MaxBatchReplyBytes}
	h.maxBody = h.opts.MaxBodyBytes
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	h.ttl = h.opts.SessionTTL
	if h.ttl <= 0 {
		h.ttl = DefaultSessionTTL
	}
	return h
}

const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.allowedHost(r.Host) || !h.allowedOrigin(r.Header.Get("Origin"), r.Host) {
		writeJSONError(w, http.StatusForbidden, CodeInvalidRequest, "forbidden: the request's Host or Origin is not allowed")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		h.notAllowed(w)
	}
}

func (h *HTTPHandler) notAllowed(w http.ResponseWriter) {
	if h.opts.Stateful {
		w.Header().Set("Allow", "GET, POST, DELETE")
	} else {
		w.Header().Set("Allow", "POST")
	}
	writeJSONError(w, http.StatusMethodNotAllowed, CodeInvalidRequest, "method not allowed")
}

func writeJSONError(w http.ResponseWriter, status int, code Code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.AppendError(nil, nil, int64(code), msg, nil))
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// readBody reads the body into a pooled buffer; the caller puts it back.
func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) (*[]byte, error) {
	bp := bufPool.Get().(*[]byte)
	b := (*bp)[:0]
	body := http.MaxBytesReader(w, r.Body, h.maxBody)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			*bp = b
			bufPool.Put(bp)
			return nil, err
		}
	}
	*bp = b
	return bp, nil
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	bp, err := h.readBody(w, r)
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeJSONError(w, http.StatusRequestEntityTooLarge, CodeInvalidRequest, "request body too large")
		} else {
			writeJSONError(w, http.StatusBadRequest, CodeParseError, "could not read the request body")
		}
		return
	}
	defer bufPool.Put(bp)
	body := *bp
	if jsonrpc.IsBatch(body) {
		h.postBatch(w, r, body)
		return
	}
	in, err := decodeMessage(body)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(decodeError(in.m, err))
		return
	}
	m, kind, p := in.m, in.kind, in.p
	if in.perr != nil {
		if kind == jsonrpc.KindRequest {
			h.writeError(w, http.StatusBadRequest, m.ID, in.perr)
		} else {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	modern := p.triesModern()
	if hv := r.Header.Get(headerProtocolVersion); IsModern(hv) && h.srv.versions.supports(hv) {
		modern = true
	}
	switch {
	case modern && kind == jsonrpc.KindRequest:
		h.postModern(w, r, m, p)
		return
	case modern && kind == jsonrpc.KindNotification:
		// The modern era defines no client notification over HTTP: closing
		// a stream is how a client cancels. Accept and ignore.
		w.WriteHeader(http.StatusAccepted)
		return
	case modern:
		h.writeError(w, http.StatusBadRequest, nil, NewError(CodeInvalidRequest, "a 2026-07-28 client does not send responses over HTTP"))
		return
	}
	h.postLegacy(w, r, m, kind, p)
}

// writeError writes one error response with the given HTTP status.
func (h *HTTPHandler) writeError(w http.ResponseWriter, status int, id []byte, err error) {
	bp := bufPool.Get().(*[]byte)
	b := appendErrorResponse((*bp)[:0], id, err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
	*bp = b
	bufPool.Put(bp)
}

// postModern serves a 2026-07-28 request.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, p *wireParams) {
	req := h.srv.newRequest(m, peer{header: r.Header})
	// The headers must repeat the body before the body's version is judged,
	// as the reference server does: a disagreement is -32020, not -32022.
	if p.Meta != nil && p.Meta.Version != "" {
		if err := h.srv.checkModernHeaders(r.Header, m.Method, p); err != nil {
			h.writeError(w, http.StatusBadRequest, m.ID, err)
			return
		}
	}
	if err := h.srv.checkModern(req, p); err != nil {
		h.writeError(w, http.StatusBadRequest, m.ID, err)
		return
	}
	h.answer(w, r, req, p, "")
}

// checkModernHeaders checks that the routing headers repeat the body.
func (s *Server) checkModernHeaders(hd http.Header, method string, p *wireParams) error {
	mismatch := func(name, got, want string) error {
		return &Error{Code: CodeHeaderMismatch, Message: "header mismatch: " + name + " is " + quoteOrMissing(got) + " but the body says " + quoteOrMissing(want)}
	}
	if v := hd.Get(headerProtocolVersion); v != p.Meta.Version {
		return mismatch("MCP-Protocol-Version", v, p.Meta.Version)
	}
	if v := hd.Get(headerMethod); v != method {
		return mismatch("Mcp-Method", v, method)
	}
	var name string
	switch method {
	case "tools/call", "prompts/get":
		name = p.Name
	case "resources/read":
		name = p.URI
	default:
		return nil
	}
	v, ok := decodeHeaderValue(hd.Get(headerName))
	if !ok || v != name {
		return mismatch("Mcp-Name", hd.Get(headerName), name)
	}
	if method == "tools/call" {
		return s.checkParamHeaders(hd, p)
	}
	return nil
}

func quoteOrMissing(s string) string {
	if s == "" {
		return "missing"
	}
	return "'" + s + "'"
}

// decodeHeaderValue undoes the =?base64?...?= form clients use for values
// that are not plain ASCII.
func decodeHeaderValue(v string) (string, bool) {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= 11 {
		data, err := base64.StdEncoding.DecodeString(v[9 : len(v)-2])
		if err != nil {
			return "", false
		}
		return string(data), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return "", false
		}
	}
	return v, true
}

// resolvedSession is what a legacy request's session id resolves to.
type resolvedSession struct {
	id      string
	version string
	caps    clientCaps
	state   *SessionState // stateful only
}

// postLegacy serves a 2025 message.
func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, kind jsonrpc.Kind, p *wireParams) {
	hv := r.Header.Get(headerProtocolVersion)
	if hv != "" && (IsModern(hv) || !h.srv.versions.supports(hv)) {
		h.writeError(w, http.StatusBadRequest, m.ID, NewError(CodeInvalidRequest,
			"unsupported MCP-Protocol-Version %q; supported: %s", hv, strings.Join(h.srv.versions.legacy, ", ")))
		return
	}
	if kind == jsonrpc.KindRequest && m.Method == "initialize" {
		h.initialize(w, r, m, p)
		return
	}
	sess, status, err := h.session(r)
	if err != nil {
		h.writeError(w, status, m.ID, err)
		return
	}
	switch kind {
	case jsonrpc.KindNotification:
		if m.Method == "notifications/cancelled" && h.opts.Stateful {
			h.cancel(sess.id, p.RequestID)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResponse:
		if ls := h.liveGet(sess.id); ls != nil {
			ls.calls.deliver(m)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.answer(w, r, h.legacyRequest(r, m, sess), p, sess.id)
}

// legacyRequest builds the request of a legacy session. A stateful session
// brings its log level (info until set) and its state; a stateless one
// keeps neither, so it sends no logs.
func (h *HTTPHandler) legacyRequest(r *http.Request, m *jsonrpc.Message, sess *resolvedSession) *request {
	req := h.srv.newRequest(m, peer{header: r.Header})
	ls := legacySession{id: sess.id, version: sess.version, caps: sess.caps, level: levelOff}
	if sess.state != nil {
		ls.level = LevelInfo
		if l, ok := parseLevel(sess.state.LogLevel); ok {
			ls.level = l
		}
		ls.state = &storedState{h: h, id: sess.id}
	}
	req.join(ls)
	return req
}

// session resolves the request's session id, with the HTTP status to
// answer when it does not resolve.
func (h *HTTPHandler) session(r *http.Request) (*resolvedSession, int, error) {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		return nil, http.StatusBadRequest, NewError(CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first")
	}
	notFound := func() error {
		return &Error{Code: CodeInvalidRequest, Message: "session not found: it expired or was ended; send initialize again"}
	}
	if !h.opts.Stateful {
		caller, _ := PrincipalFromContext(r.Context())
		t, err := h.srv.keys.checkSession(id, h.ttl, caller)
		if err != nil {
			return nil, http.StatusNotFound, notFound()
		}
		return &resolvedSession{id: id, version: t.version, caps: t.caps}, 0, nil
	}
	st, err := h.store.Load(r.Context(), id)
	if err == nil && st.Subject != "" && subjectOf(r.Context()) != st.Subject {
		err = ErrSessionNotFound // another caller's session is no session of his
	}
	if err != nil {
		if errors.Is(err, ErrSessionNotFound) {
			return nil, http.StatusNotFound, notFound()
		}
		h.srv.logError(r.Context(), "loading session", "err", err)
		return nil, http.StatusInternalServerError, NewError(CodeInternalError, "session store unavailable")
	}
	return &resolvedSession{id: id, version: st.ProtocolVersion, caps: st.ClientCapabilities.caps(), state: st}, 0, nil
}

// initialize negotiates a legacy session and issues its id.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, p *wireParams) {
	version := h.srv.versions.negotiate(p.ProtocolVersion)
	if version == "" {
		h.writeError(w, http.StatusBadRequest, m.ID, h.srv.unsupportedVersion(p.ProtocolVersion, onlyModern))
		return
	}
	caps := parseClientCaps(p.Capabilities)
	var id string
	if h.opts.Stateful {
		id = newSessionID()
		st := &SessionState{ID: id, ProtocolVersion: version, ClientCapabilities: caps.exported(), Subject: subjectOf(r.Context())}
		if err := h.store.Create(r.Context(), st); errors.Is(err, ErrTooManySessions) {
			h.srv.logger.WarnContext(r.Context(), "ferry: refused a session: the session store is full")
			h.writeError(w, http.StatusServiceUnavailable, m.ID, NewError(CodeInternalError,
				"too many open sessions: end unused ones (HTTP DELETE) or try again later"))
			return
		} else if err != nil {
			h.srv.logError(r.Context(), "creating session", "err", err)
			h.writeError(w, http.StatusInternalServerError, m.ID, NewError(CodeInternalError, "session store unavailable"))
			return
		}
	} else {
		caller, _ := PrincipalFromContext(r.Context())
		id = h.srv.keys.issueSession(version, caps, caller)
	}
	w.Header().Set(headerSessionID, id)
	req := h.srv.newRequest(m, peer{header: r.Header})
	ls := legacySession{id: id, version: version, caps: caps, level: levelOff}
	if h.opts.Stateful {
		ls.level, ls.state = LevelInfo, &storedState{h: h, id: id}
	}
	req.join(ls)
	h.answer(w, r, req, p, id)
}

// answer serves a request and writes its response: JSON, or an SSE stream
// when the handler sends messages before its result.
func (h *HTTPHandler) answer(w http.ResponseWriter, r *http.Request, req *request, p *wireParams, sessionID string) {
	sw := &streamWriter{w: w, sse: acceptsSSE(r.Header.Get("Accept"))}
	req.out = sw
	if !req.modern && sw.sse && primes(req.version) {
		sw.prime = true
	}
	// A modern answer's HTTP status depends on its error (404 for an
	// unknown method, 400 for a missing client capability), so its stream
	// opens with the first message or, streamed, with the response itself.
	if h.opts.StreamResponses && sw.sse {
		if req.modern {
			sw.streamAll = true
		} else {
			sw.open()
		}
	}
	ctx := r.Context()
	if h.opts.Stateful && sessionID != "" && !req.modern {
		ls := h.liveAcquire(sessionID)
		defer h.liveRelease(sessionID, ls)
		req.calls = &ls.calls
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		ls.track(string(req.id), cancel)
		defer ls.untrack(string(req.id))
	}
	bp := bufPool.Get().(*[]byte)
	b := h.srv.respond(ctx, req, p, (*bp)[:0])
	req.finish()
	sw.finish(modernStatus(req), b)
	*bp = b
	bufPool.Put(bp)
}

// modernStatus is the HTTP status of a request's answer: a modern error
// that the spec gives a status has it, everything else is 200.
func modernStatus(req *request) int {
	if req.modern {
		switch req.failed {
		case CodeMethodNotFound:
			return http.StatusNotFound
		case CodeMissingClientCapability:
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// primes reports whether a legacy client speaks a version whose SSE streams
// start with a priming event (2025-11-25 and later): older clients may not
// expect an event without data.
func primes(version string) bool { return version >= "2025-11-25" }

// sseRetryMillis is the reconnection delay a priming event suggests.
const sseRetryMillis = 1000

// jsonContentType is shared by every JSON answer; nothing modifies it.
var jsonContentType = []string{"application/json"}

func acceptsSSE(accept string) bool {
	return strings.Contains(accept, "text/event-stream")
}

// streamWriter answers one POST: plain JSON unless a message must go out
// before the response, in which case it turns into an SSE stream.
type streamWriter struct {
	w   http.ResponseWriter
	sse bool // the client accepts SSE

	// prime starts the stream with a priming event: an event id, a retry
	// field and empty data, as 2025-11-25 recommends.
	prime bool
	// streamAll sends the response as an SSE event when it is a success,
	// even if no message came before it.
	streamAll bool

	mu      sync.Mutex // guards started, closed and broken, and serializes writes
	started bool       // SSE headers sent
	closed  bool
	broken  bool // a write missed its deadline: nothing more is written
}

// send writes one message before the response, switching to SSE.
func (sw *streamWriter) send(msg []byte) error {
	if !sw.sse {
		return ErrNoClientStream
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed || sw.broken {
		return ErrNoClientStream
	}
	sw.startSSE()
	return sw.event(msg)
}

// sendChange implements [changeSender]: it sends msg like send, but within
// [NotificationWriteTimeout] when the ResponseWriter supports write
// deadlines (net/http's does).
func (sw *streamWriter) sendChange(msg []byte) error {
	if !sw.sse {
		return ErrNoClientStream
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed || sw.broken {
		return ErrNoClientStream
	}
	sw.startSSE()
	return sw.within(func() error { return sw.event(msg) })
}

// trySendChange implements [changeSender]: an HTTP write may always wait,
// so it never sends.
func (sw *streamWriter) trySendChange([]byte) bool { return false }

// within runs write under a write deadline of [NotificationWriteTimeout];
// the caller holds sw.mu. A write that fails breaks the stream: it may have
// been cut short, and the client is not reading.
func (sw *streamWriter) within(write func() error) error {
	rc := http.NewResponseController(sw.w)
	timed := rc.SetWriteDeadline(time.Now().Add(NotificationWriteTimeout)) == nil
	if err := write(); err != nil {
		sw.broken = true
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: a write waited %v", errStreamStalled, NotificationWriteTimeout)
		}
		return err
	}
	if timed {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	return nil
}

func (sw *streamWriter) startSSE() {
	if sw.started {
		return
	}
	sw.started = true
	hd := sw.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	sw.w.WriteHeader(http.StatusOK)
	if sw.prime {
		// No event is stored, so the id only tells a client the stream
		// was there; a reconnection finds nothing to replay.
		_, _ = io.WriteString(sw.w, "id: "+newSessionID()+"\nretry: "+strconv.Itoa(sseRetryMillis)+"\ndata: \n\n")
	}
}

func (sw *streamWriter) event(msg []byte) error {
	if _, err := io.WriteString(sw.w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := sw.w.Write(msg); err != nil {
		return err
	}
	if _, err := io.WriteString(sw.w, "\n\n"); err != nil {
		return err
	}
	return http.NewResponseController(sw.w).Flush()
}

// open starts the SSE stream and sends its headers at once.
func (sw *streamWriter) open() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.startSSE()
	_ = http.NewResponseController(sw.w).Flush()
}

// keepalive writes an SSE comment, so that proxies and clients see a long
// stream is alive; it opens the stream if needed.
func (sw *streamWriter) keepalive() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed || sw.broken || !sw.sse {
		return ErrNoClientStream
	}
	sw.startSSE()
	return sw.within(func() error {
		if _, err := io.WriteString(sw.w, ": keepalive\n\n"); err != nil {
			return err
		}
		return http.NewResponseController(sw.w).Flush()
	})
}

// finish writes the response and ends the exchange.
func (sw *streamWriter) finish(status int, resp []byte) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.closed = true
	if sw.broken {
		return
	}
	if sw.started || (sw.streamAll && status == http.StatusOK) {
		sw.startSSE()
		_ = sw.event(resp)
		return
	}
	sw.w.Header()["Content-Type"] = jsonContentType
	sw.w.WriteHeader(status)
	_, _ = sw.w.Write(resp)
}

func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Stateful || !acceptsSSE(r.Header.Get("Accept")) {
		h.notAllowed(w)
		return
	}
	sess, status, err := h.session(r)
	if err != nil {
		h.writeError(w, status, nil, err)
		return
	}
	ls := h.liveAcquire(sess.id)
	defer h.liveRelease(sess.id, ls)
	// Each notification goes on one stream only, so a session has one.
	if !ls.openGet() {
		writeJSONError(w, http.StatusConflict, CodeInvalidRequest, "this session already has a GET stream open")
		return
	}
	defer ls.closeGet()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	streamKey := "GET " + newSessionID() // DELETE ends the stream too
	ls.track(streamKey, cancel)
	defer ls.untrack(streamKey)
	// Subscribe before the stream opens, so that no change between the
	// client seeing the stream and the watch is lost. The subscriptions
	// are loaded once, here, and kept in the live session while the stream
	// is open.
	if err := ls.loadSubscriptions(ctx, h.store, sess.id); err != nil {
		h.sessionError(w, r, err)
		return
	}
	wt := newWatcher(func(c change) bool { return c.uri == "" || ls.subscribed(c.uri) })
	stop := h.srv.watch(wt)
	defer stop()
	sw := &streamWriter{w: w, sse: true, prime: primes(sess.version)}
	sw.open()
	err = holdStream(ctx, nil, sw.keepalive, wt, func(c change) error { return sw.sendChange(c.message()) })
	if errors.Is(err, errStreamStalled) {
		h.srv.streamEnded(ctx, "GET", err)
	}
}

// sessionError answers a request whose session could not be loaded or
// updated.
func (h *HTTPHandler) sessionError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrSessionNotFound) {
		writeJSONError(w, http.StatusNotFound, CodeInvalidRequest, "session not found: it expired or was ended; send initialize again")
		return
	}
	h.srv.logError(r.Context(), "loading session", "err", err)
	writeJSONError(w, http.StatusInternalServerError, CodeInternalError, "session store unavailable")
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Stateful {
		h.notAllowed(w)
		return
	}
	id := r.Header.Get(headerSessionID)
	if id == "" {
		writeJSONError(w, http.StatusBadRequest, CodeInvalidRequest, "missing Mcp-Session-Id header")
		return
	}
	if _, status, err := h.session(r); err != nil { // only its own caller may end a session
		h.writeError(w, status, nil, err)
		return
	}
	if err := h.store.Delete(r.Context(), id); err != nil {
		if errors.Is(err, ErrSessionNotFound) {
			writeJSONError(w, http.StatusNotFound, CodeInvalidRequest, "session not found")
		} else {
			h.srv.logError(r.Context(), "deleting session", "err", err)
			writeJSONError(w, http.StatusInternalServerError, CodeInternalError, "session store unavailable")
		}
		return
	}
	h.liveMu.Lock()
	ls := h.live[id]
	h.liveMu.Unlock()
	if ls != nil {
		ls.cancelAll()
	}
	w.WriteHeader(http.StatusNoContent)
}
