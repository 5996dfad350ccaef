package ferry

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
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
	// ResourceMetadataURL is the URL of the server's OAuth protected
	// resource metadata (RFC 9728), named as resource_metadata in the
	// insufficient_scope challenge of a 403 (see [ServerOptions.StepUp]).
	// If empty, the challenge names none.
	ResourceMetadataURL string
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
	// Last: once subscribed, other replicas' messages reach the handler
	// on other goroutines.
	if rel, ok := h.opts.SessionStore.(SessionRelay); ok {
		h.startRelay(rel)
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
	if header, option := h.refusedBy(r); header != "" {
		h.srv.logger.WarnContext(r.Context(), "ferry: refused a request from an origin it does not serve",
			"header", header, "value", refusedValue(r, header),
			"hint", "if this client is yours, add it to HTTPOptions."+option)
		writeJSONError(w, http.StatusForbidden, CodeInvalidRequest, "forbidden: the request's "+header+" is not allowed")
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

// postModern serves a 2026-07-28 request.
func (h *HTTPHandler) postModern(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, p *wireParams) {
	req := h.srv.newRequest(m, peer{header: r.Header, remote: r.RemoteAddr, host: r.Host, drain: h.drain})
	// The headers must repeat the body before the body's version is judged,
	// as the reference server does: a disagreement is -32020, not -32022.
	if p.Meta.Version != "" {
		// The check asks Visible about the tool a tools/call names: it must
		// see the call as callTool will show it, or the two could disagree.
		if m.Method == "tools/call" {
			req.tool, req.version = p.Name, string(p.Meta.Version)
		}
		err := h.srv.checkModernHeaders(r.Context(), req, r.Header, m.Method, p)
		req.tool, req.version = "", ""
		if err != nil {
			h.writeError(w, http.StatusBadRequest, m.ID, err)
			return
		}
	}
	if err := h.srv.checkModern(req, p); err != nil {
		h.writeError(w, http.StatusBadRequest, m.ID, err)
		return
	}
	if missing := h.stepUpCall(r.Context(), req, m.Method, p); missing != nil {
		h.writeStepUp(w, m.ID, missing)
		return
	}
	h.answer(w, r, req, p, "")
}

// checkModernHeaders checks that the routing headers repeat the body, each
// sent once: an intermediary that routes or authorizes on a header must
// read the value the server acts on. ctx is the request's, for the
// visibility of the tool a tools/call names, with req, the request being
// served (its CallInfo is what Visible may read).
func (s *Server) checkModernHeaders(ctx context.Context, req *request, hd http.Header, method string, p *wireParams) error {
	says := func(want string) string { return "the body says " + quoteOrMissing(want) }
	if v, err := singleHeader(hd, headerProtocolVersion); err != nil || v != string(p.Meta.Version) {
		return orMismatch(err, "MCP-Protocol-Version", v, says(string(p.Meta.Version)))
	}
	if v, err := singleHeader(hd, headerMethod); err != nil || v != method {
		return orMismatch(err, "Mcp-Method", v, says(method))
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
	raw, err := singleHeader(hd, headerName)
	if v, ok := decodeHeaderValue(raw); err != nil || !ok || v != name {
		return orMismatch(err, "Mcp-Name", raw, says(name))
	}
	if method == "tools/call" {
		return s.checkParamHeaders(ctx, req, hd, p)
	}
	return nil
}

// singleHeader returns the value of the header name, "" when it is absent,
// and an error when it is sent more than once.
func singleHeader(hd http.Header, name string) (string, error) {
	vs := hd[http.CanonicalHeaderKey(name)]
	switch len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	}
	return "", &Error{Code: CodeHeaderMismatch, Message: "header mismatch: " + name + " is sent " + strconv.Itoa(len(vs)) + " times; send it once"}
}

// orMismatch returns err if there is one, and otherwise the error for a
// header whose value got disagrees with the body.
func orMismatch(err error, header, got, body string) error {
	if err != nil {
		return err
	}
	return headerMismatch(header, got, body)
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

// answer serves a request and writes its response: JSON, or an SSE stream
// when the handler sends messages before its result.
func (h *HTTPHandler) answer(w http.ResponseWriter, r *http.Request, req *request, p *wireParams, sessionID string) {
	sw := &streamWriter{w: w, sse: acceptsSSE(r.Header.Get("Accept")), ownTimeout: hasWriteTimeout(r)}
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
	var ls *liveSession
	if h.opts.Stateful && sessionID != "" && !req.modern {
		ls = h.liveAcquire(sessionID)
		defer h.liveRelease(sessionID, ls)
	}
	bp := bufPool.Get().(*[]byte)
	b := h.respondIn(r.Context(), ls, req, p, (*bp)[:0])
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
