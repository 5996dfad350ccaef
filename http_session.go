package ferry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds the HTTP handler's legacy (2025) sessions: initialize,
// resolving a session id, the GET stream and DELETE.

// postLegacy serves a 2025 message.
func (h *HTTPHandler) postLegacy(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, kind jsonrpc.Kind, p *wireParams) {
	hv := headerValue(r.Header, headerProtocolVersion)
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
			if err := h.cancel(r.Context(), sess.id, p.RequestID); err != nil {
				h.relayFailed(w, r, "relaying a cancellation", err)
				return
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc.KindResponse:
		if h.opts.Stateful {
			if err := h.reply(r.Context(), sess.id, m); err != nil {
				h.relayFailed(w, r, "relaying a reply", err)
				return
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req := h.legacyRequest(r, m, p, sess)
	if req.target.access == accessStepUp {
		h.writeStepUp(w, m.ID, h.srv.stepUpMissing(req.context(), req.target.tool.info.Scopes))
		return
	}
	h.respond(w, r, req)
}

// legacyRequest returns the request of message m in the legacy session
// sess, resolved.
func (h *HTTPHandler) legacyRequest(r *http.Request, m *jsonrpc.Message, p *wireParams, sess legacySession) *request {
	req := newRequest(r.Context(), m, p, h.peer(r))
	req.join(sess)
	h.srv.resolve(req)
	return req
}

// legacySession returns the view of a legacy session that its requests
// join. A stateful session (st is its state) brings its log level, info
// until set, and its stored state; a stateless one (st is nil) keeps
// neither, so it sends no logs.
func (h *HTTPHandler) legacySession(id, version string, caps clientCaps, st *SessionState) legacySession {
	ls := legacySession{id: id, version: version, caps: caps, level: levelOff}
	if st != nil {
		ls.level = LevelInfo
		if l, ok := parseLevel(st.LogLevel); ok {
			ls.level = l
		}
		ls.state = &storedState{h: h, id: id}
		ls.groups = h.srv.storedToolsets(st)
	}
	return ls
}

// session resolves the request's session id, with the HTTP status to
// answer when it does not resolve.
func (h *HTTPHandler) session(r *http.Request) (legacySession, int, error) {
	id := headerValue(r.Header, headerSessionID)
	if id == "" {
		return legacySession{}, http.StatusBadRequest, NewError(CodeInvalidRequest, "missing Mcp-Session-Id header: send initialize first")
	}
	notFound := func() error {
		return &Error{Code: CodeInvalidRequest, Message: "session not found: it expired or was ended; send initialize again"}
	}
	if !h.opts.Stateful {
		caller, _ := PrincipalFromContext(r.Context())
		t, err := h.srv.keys.checkSession(id, h.ttl, caller)
		if err != nil {
			h.logSessionOfAnother(r, err)
			return legacySession{}, http.StatusNotFound, notFound()
		}
		return h.legacySession(id, t.version, t.caps, nil), 0, nil
	}
	st, err := h.store.Load(r.Context(), id)
	if iss, sub := identityOf(r.Context()); err == nil && st.Subject != "" && (sub != st.Subject || iss != st.Issuer) {
		err = errSessionOfAnother // another caller's session is no session of his
	}
	h.logSessionOfAnother(r, err)
	if err != nil {
		if errors.Is(err, ErrSessionNotFound) {
			return legacySession{}, http.StatusNotFound, notFound()
		}
		h.srv.logError(r.Context(), "loading session", "err", err)
		return legacySession{}, http.StatusInternalServerError, h.storeUnavailable()
	}
	return h.legacySession(id, st.ProtocolVersion, st.ClientCapabilities.caps(), st), 0, nil
}

// logSessionOfAnother logs a session id presented by another caller than
// the one that opened it: the client is told only that the session is not
// found, and the operator should know why (a client sharing ids between
// users, or someone trying ids).
func (h *HTTPHandler) logSessionOfAnother(r *http.Request, err error) {
	if errors.Is(err, errSessionOfAnother) {
		iss, sub := identityOf(r.Context())
		h.srv.logger.WarnContext(r.Context(), "ferry: refused a session opened by another caller",
			"caller", sub, "issuer", iss, "hint", "a session serves only the principal that sent initialize")
	}
}

// initialize negotiates a legacy session and issues its id.
func (h *HTTPHandler) initialize(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, p *wireParams) {
	version := h.srv.versions.negotiate(p.ProtocolVersion)
	if version == "" {
		h.writeError(w, http.StatusBadRequest, m.ID, h.srv.unsupportedVersion(p.ProtocolVersion, onlyModern))
		return
	}
	caps := parseClientCaps(p.Capabilities)
	var sess legacySession
	if h.opts.Stateful {
		id := newSessionID()
		st := &SessionState{ID: id, ProtocolVersion: version, ClientCapabilities: caps.exported()}
		st.Issuer, st.Subject = identityOf(r.Context())
		if err := h.store.Create(r.Context(), st); errors.Is(err, ErrTooManySessions) {
			h.srv.logger.WarnContext(r.Context(), "ferry: refused a session: the session store is full")
			h.writeError(w, http.StatusServiceUnavailable, m.ID, NewError(CodeInternalError,
				"too many open sessions: end unused ones (HTTP DELETE) or try again later"))
			return
		} else if err != nil {
			h.srv.logError(r.Context(), "creating session", "err", err)
			h.writeError(w, http.StatusInternalServerError, m.ID, h.storeUnavailable())
			return
		}
		sess = h.legacySession(id, version, caps, st)
	} else {
		caller, _ := PrincipalFromContext(r.Context())
		sess = h.legacySession(h.srv.keys.issueSession(version, caps, caller), version, caps, nil)
	}
	w.Header().Set(headerSessionID, sess.id)
	h.respond(w, r, h.legacyRequest(r, m, p, sess))
}

// sessionError answers a request whose session could not be loaded or
// updated.
func (h *HTTPHandler) sessionError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrSessionNotFound) {
		writeJSONError(w, http.StatusNotFound, CodeInvalidRequest, "session not found: it expired or was ended; send initialize again")
		return
	}
	h.srv.logError(r.Context(), "loading session", "err", err)
	writeJSONError(w, http.StatusInternalServerError, CodeInternalError, h.storeUnavailable().Message)
}

// storeUnavailable is the error of a request the session store failed,
// naming the store by its String method, if it has one.
func (h *HTTPHandler) storeUnavailable() *Error {
	msg := "session store unavailable"
	if s, ok := h.store.(fmt.Stringer); ok {
		msg = "session store (" + s.String() + ") unavailable"
	}
	return &Error{Code: CodeInternalError, Message: msg + ": try again later"}
}

// relayFailed answers a message that had to go to another replica and
// could not.
func (h *HTTPHandler) relayFailed(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.srv.logError(r.Context(), what, "err", err)
	writeJSONError(w, http.StatusInternalServerError, CodeInternalError, h.storeUnavailable().Message)
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Stateful {
		h.notAllowed(w)
		return
	}
	id := headerValue(r.Header, headerSessionID)
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
			writeJSONError(w, http.StatusInternalServerError, CodeInternalError, h.storeUnavailable().Message)
		}
		return
	}
	if ls := h.liveGet(id); ls != nil {
		ls.cancelAll()
	}
	if err := h.ended(r.Context(), id); err != nil {
		// Deleted: the session's streams on other replicas see it gone
		// within a keepalive interval, its requests at their next use.
		h.srv.logger.WarnContext(r.Context(), "ferry: could not tell the other replicas of a session's end", "err", err)
	}
	w.WriteHeader(http.StatusNoContent)
}

// storedState applies logging/setLevel and subscriptions to a stored
// session, each as one atomic [SessionStore.Update].
type storedState struct {
	h  *HTTPHandler
	id string
}

// update applies f to the stored session. A failure of the store is
// logged and answered as such; an error of f is the answer.
func (s *storedState) update(ctx context.Context, f func(*SessionState) error) error {
	if ls := s.h.liveGet(s.id); ls != nil {
		ls.updMu.Lock()
		defer ls.updMu.Unlock()
	}
	var ferr error
	err := s.h.store.Update(ctx, s.id, func(st *SessionState) error {
		ferr = f(st)
		return ferr
	})
	switch {
	case err == nil:
		return nil
	case ferr != nil && errors.Is(err, ferr):
		return ferr
	case errors.Is(err, ErrSessionNotFound):
		return &Error{Code: CodeInvalidRequest, Message: "session not found: it expired or was ended; send initialize again"}
	}
	s.h.srv.logError(ctx, "updating session", "err", err)
	return s.h.storeUnavailable()
}

func (s *storedState) setLevel(ctx context.Context, l LogLevel) error {
	return s.update(ctx, func(st *SessionState) error {
		st.LogLevel = l.String()
		return nil
	})
}

func (s *storedState) subscribe(ctx context.Context, uri string, on bool) error {
	confirmed, err := s.storeSubscription(ctx, uri, on)
	if err != nil {
		return err
	}
	// Without subsMu: the wait holds up neither the session's other
	// subscriptions nor its GET stream here.
	if err := confirmed(ctx); err != nil {
		// Stored: the session's GET stream on another replica reloads it
		// within a keepalive interval.
		s.h.srv.logger.WarnContext(ctx, "ferry: could not tell the other replicas of a subscription", "err", err)
	}
	return nil
}

// storeSubscription stores a subscription change and tells the other
// replicas of it, under the session's subsMu, so that the changes reach
// them in the order they were stored. confirmed waits until the replica
// holding the session's GET stream has the change (see
// [HTTPHandler.subscribedHere]).
func (s *storedState) storeSubscription(ctx context.Context, uri string, on bool) (confirmed func(context.Context) error, err error) {
	ls := s.h.liveGet(s.id)
	if ls != nil {
		ls.subsMu.Lock()
		defer ls.subsMu.Unlock()
	}
	var holder string // the handler holding the session's GET stream
	err = s.update(ctx, func(st *SessionState) error {
		subs, err := subscribeList(st.Subscriptions, uri, on)
		st.Subscriptions, holder = subs, st.Stream
		return err
	})
	if err != nil {
		return nil, err
	}
	if ls != nil {
		ls.subscriptionChanged(uri, on)
	}
	return s.h.subscribedHere(ctx, s.id, uri, on, holder), nil
}
