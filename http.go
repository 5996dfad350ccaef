package ferry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds the HTTP handler and a POST's path through it: read,
// decoded, resolved, checked, joined to its session, served and answered.

// HTTPOptions configures an [HTTPHandler]. The zero value serves stateless
// sessions with the security checks on.
type HTTPOptions struct {
	// Stateful keeps legacy sessions in SessionStore, which server-to-client
	// requests (sampling, elicitation, roots), logging/setLevel, resource
	// subscriptions and the GET stream need. If false, a legacy session id
	// is a signed token any replica can check, and nothing is kept per
	// client. The modern era is stateless either way.
	Stateful bool
	// SessionStore keeps stateful sessions, when Stateful is set. If nil,
	// a [MemorySessionStore] with the default idle timeout is used, for
	// this handler alone. Replicas behind a load balancer without sticky
	// sessions share a networked store that also implements
	// [SessionRelay] (module github.com/ferry-mcp/ferry/redisstore): then
	// any replica serves any request of a session. A store that relays
	// is used for its relay even when Stateful is not set: the list
	// changes and resource updates of every replica then reach the
	// subscriptions/listen streams of all. Call [HTTPHandler.Shutdown] to
	// unsubscribe a handler from its store's relay.
	SessionStore SessionStore
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
	// Limits bound what one HTTP request or session may hold. The zero
	// value holds the defaults (see [HTTPLimits]).
	Limits HTTPLimits
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
	// ResourceMetadataURL is the URL of the server's OAuth protected
	// resource metadata (RFC 9728), named as resource_metadata in the
	// insufficient_scope challenge of a 403 (see [ServerOptions.StepUp]).
	// If empty, the challenge names none.
	ResourceMetadataURL string

	// Groups, if not empty, makes the handler an endpoint of these groups
	// only (see [GroupInfo]): its lists, calls, prompts, resources and
	// completions are those of the entries that belong to one of them,
	// and every other entry answers as one that does not exist. Every
	// other rule (requirements, Visible, ReadOnly, limits) still holds.
	// If empty, every entry is served. See http_group.go.
	Groups []string
	// GroupPathValue names the wildcard of the handler's route pattern
	// that names a group, "group" for a handler mounted on
	// "/mcp/{group}": a request to /mcp/billing is then served as by a
	// handler whose Groups is billing (one of Groups, if those are set;
	// otherwise it gets 404), and a request for a group that has no
	// entries gets 404. A request whose route gives the wildcard no value
	// is served as Groups says. If empty, the path names no group.
	GroupPathValue string
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

	drain *drain // the requests in flight, for Shutdown

	relay *httpRelay // the link to the other replicas, or nil (http_relay.go)

	groups *groupSet // HTTPOptions.Groups, or nil (http_group.go)
}

// NewHTTPHandler returns a handler serving s. opts may be nil; it is copied.
// It panics with the problems [Server.Check] reports, so that a server with
// a misdeclared tool never starts: a server built from data should call
// Check first and report its error.
func NewHTTPHandler(s *Server, opts *HTTPOptions) *HTTPHandler {
	if err := s.startServing(); err != nil {
		panic("ferry: the server's start-up check failed:\n" + err.Error()) //nolint:forbidigo // documented: a misdeclared server must not start
	}
	h := &HTTPHandler{srv: s, live: map[string]*liveSession{}, drain: newDrain()}
	if opts != nil {
		h.opts = *opts
	}
	h.groups = endpointGroups(h.opts.Groups)
	h.store = h.opts.SessionStore
	if h.store == nil && h.opts.Stateful {
		h.store = &MemorySessionStore{MaxSessions: h.opts.Limits.MaxSessions}
	}
	h.batch = batchLimits{items: h.opts.Limits.MaxBatchItems, replyBytes: h.opts.Limits.MaxBatchReplyBytes}
	h.maxBody = h.opts.Limits.MaxBodyBytes
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	h.ttl = h.opts.Limits.SessionTTL
	if h.ttl <= 0 {
		h.ttl = DefaultSessionTTL
	}
	// Last: once subscribed, other replicas' messages reach the handler
	// on other goroutines.
	if rel, ok := h.opts.SessionStore.(SessionRelay); ok {
		h.startRelay(rel)
	}
	return h
}

// ServeHTTP implements [http.Handler].
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.Refused(w, r) {
		return
	}
	if h.opts.GroupPathValue != "" && !h.servesGroupOf(w, r) {
		return
	}
	h.drain.enter()
	defer h.drain.leave()
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
		batch, err := h.srv.decodeBatch(body, h.batch.orDefaults().items)
		if err != nil {
			h.writeError(w, http.StatusBadRequest, nil, err)
			return
		}
		h.postBatch(w, r, batch)
		return
	}
	in, err := h.srv.decodeMessage(body)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(decodeError(in.m, err))
		return
	}
	m, kind, p := in.m, in.kind, in.p
	if kind == jsonrpc.KindRequest && h.drain.refuses() {
		h.refuseShuttingDown(w, m.ID)
		return
	}
	if in.perr != nil {
		if kind == jsonrpc.KindRequest {
			h.writeError(w, http.StatusBadRequest, m.ID, in.perr)
		} else {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	modern := p.triesModern()
	if hv := headerValue(r.Header, headerProtocolVersion); IsModern(hv) && h.srv.versions.supports(hv) {
		modern = true // a body without the _meta fields is refused for it
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

// refuseShuttingDown answers a request that arrived during Shutdown:
// 503, and the connection closes, so that the client's next connection
// may reach another replica.
func (h *HTTPHandler) refuseShuttingDown(w http.ResponseWriter, id []byte) {
	w.Header().Set("Connection", "close")
	h.writeError(w, http.StatusServiceUnavailable, id, errShuttingDown)
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

// postModern serves a 2026-07-28 request. Its routing headers must
// repeat its body before the body's version is judged, as the reference
// server does: a disagreement is -32020, not -32022.
func (h *HTTPHandler) postModern(w http.ResponseWriter, hr *http.Request, m *jsonrpc.Message, p *wireParams) {
	req := newRequest(hr.Context(), m, p, h.peer(hr))
	req.beModern()
	h.srv.resolve(req)
	err := h.srv.checkModernHeaders(req)
	if err == nil {
		err = h.srv.checkModern(req)
	}
	if err != nil {
		h.writeError(w, http.StatusBadRequest, m.ID, err)
		return
	}
	if req.target.access == accessStepUp {
		h.writeStepUp(w, m.ID, h.srv.stepUpMissing(req.context(), req.target.tool.info.Scopes))
		return
	}
	h.respond(w, hr, req)
}

// peer returns what the handler knows of where an HTTP request came from.
func (h *HTTPHandler) peer(hr *http.Request) peer {
	p := peer{header: hr.Header, remote: hr.RemoteAddr, host: hr.Host, drain: h.drain, groups: h.groups}
	if h.opts.GroupPathValue != "" {
		p.groups = h.groupsOf(hr)
	}
	return p
}

// respond serves req and writes its answer: JSON, or an SSE stream
// when the handler sends messages before its result.
func (h *HTTPHandler) respond(w http.ResponseWriter, hr *http.Request, req *request) {
	sw := &streamWriter{w: w, r: hr, sse: acceptsSSE(headerValue(hr.Header, "Accept"))}
	req.peer.out = sw
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
	bp := bufPool.Get().(*[]byte)
	var b []byte
	if ctx, j, err := h.join(req); err != nil {
		b = appendErrorResponse((*bp)[:0], req.id, err)
	} else {
		b = h.srv.serve(ctx, req, (*bp)[:0])
		j.leave(req)
	}
	req.finish()
	sw.finish(modernStatus(req), b)
	*bp = b
	bufPool.Put(bp)
}

// modernStatus is the HTTP status of a request's answer: a modern error
// that the spec gives a status has it, everything else is 200.
func modernStatus(req *request) int {
	if req.modern {
		switch req.reply.failed {
		case CodeMethodNotFound:
			return http.StatusNotFound
		case CodeMissingClientCapability:
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// joined is what a request took to be served, which leave gives back:
// its place in a stateful session's live session, or the watch of the
// handler's shutdown.
type joined struct {
	h      *HTTPHandler
	ls     *liveSession // the live session joined, or nil
	cancel context.CancelFunc
	watch  *callCtx // the shutdown's watch, or nil
}

// join readies req to be served and returns the context to serve it in.
// In a stateful session the request joins the live session, where the
// client's answers, notifications/cancelled, DELETE and a shutdown reach
// it; a request whose id is that of one still in flight there gets
// [errIDInFlight] instead. Elsewhere a shutdown past its deadline cancels
// the request's handler through [drain.watch] (a tool call's through its
// own context).
func (h *HTTPHandler) join(req *request) (context.Context, joined, error) {
	ctx := req.context()
	j := joined{h: h}
	if !h.opts.Stateful || req.peer.session == "" {
		if h.drain.watch(ctx, req.row, &req.reply.call) {
			j.watch = &req.reply.call
			return j.watch, j, nil
		}
		return ctx, j, nil
	}
	ls := h.liveAcquire(req.peer.session)
	req.peer.calls = &ls.calls
	ctx, cancel := context.WithCancel(ctx)
	if !ls.track(string(req.id), cancel) {
		cancel()
		h.liveRelease(req.peer.session, ls)
		return nil, joined{}, errIDInFlight
	}
	j.ls, j.cancel = ls, cancel
	return ctx, j, nil
}

// leave gives back what join took for req.
func (j joined) leave(req *request) {
	if j.watch != nil {
		j.watch.finish()
	}
	if j.ls != nil {
		j.ls.untrack(string(req.id))
		j.cancel()
		j.h.liveRelease(req.peer.session, j.ls)
	}
}

func acceptsSSE(accept string) bool {
	return strings.Contains(accept, "text/event-stream")
}

// hasWriteTimeout reports whether the http.Server serving r bounds its
// answers with a WriteTimeout.
func hasWriteTimeout(r *http.Request) bool {
	hs, ok := r.Context().Value(http.ServerContextKey).(*http.Server)
	return ok && hs.WriteTimeout > 0
}
