package ferry

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// liveSession is the part of a stateful session that cannot leave this
// process: requests in flight (for cancellation) and the server's own
// requests waiting for replies. It exists only while a request or stream of
// the session is open, so idle sessions cost nothing here.
type liveSession struct {
	refs  int // guarded by HTTPHandler.liveMu
	calls pendingCalls

	mu       sync.Mutex // guards inflight and getOpen
	inflight map[string]context.CancelFunc
	getOpen  bool // a GET stream is open: the one stream for notifications
}

// openGet claims the session's GET stream; false if one is open already.
func (ls *liveSession) openGet() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.getOpen {
		return false
	}
	ls.getOpen = true
	return true
}

func (ls *liveSession) closeGet() {
	ls.mu.Lock()
	ls.getOpen = false
	ls.mu.Unlock()
}

func (h *HTTPHandler) liveAcquire(id string) *liveSession {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	ls := h.live[id]
	if ls == nil {
		ls = &liveSession{}
		h.live[id] = ls
	}
	ls.refs++
	return ls
}

func (h *HTTPHandler) liveRelease(id string, ls *liveSession) {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	ls.refs--
	if ls.refs == 0 && h.live[id] == ls {
		delete(h.live, id)
	}
}

func (h *HTTPHandler) liveGet(id string) *liveSession {
	h.liveMu.Lock()
	defer h.liveMu.Unlock()
	return h.live[id]
}

func (ls *liveSession) track(id string, cancel context.CancelFunc) {
	ls.mu.Lock()
	if ls.inflight == nil {
		ls.inflight = map[string]context.CancelFunc{}
	}
	ls.inflight[id] = cancel
	ls.mu.Unlock()
}

func (ls *liveSession) untrack(id string) {
	ls.mu.Lock()
	delete(ls.inflight, id)
	ls.mu.Unlock()
}

func (ls *liveSession) cancelAll() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, c := range ls.inflight {
		c()
	}
}

// cancel serves notifications/cancelled for a stateful session.
func (h *HTTPHandler) cancel(sessionID string, requestID json.RawMessage) {
	ls := h.liveGet(sessionID)
	if ls == nil || requestID == nil {
		return
	}
	ls.mu.Lock()
	c := ls.inflight[string(requestID)]
	ls.mu.Unlock()
	if c != nil {
		c()
	}
}

// storedState applies logging/setLevel and subscriptions to a stored
// session.
type storedState struct {
	h  *HTTPHandler
	id string
}

func (s *storedState) update(f func(*SessionState)) {
	ctx := context.Background()
	st, err := s.h.store.Load(ctx, s.id)
	if err != nil {
		return
	}
	f(st)
	if err := s.h.store.Update(ctx, st); err != nil {
		s.h.srv.logError(ctx, "updating session", "err", err)
	}
}

func (s *storedState) setLevel(l LogLevel) {
	s.update(func(st *SessionState) { st.LogLevel = l.String() })
}

func (s *storedState) subscribe(uri string, on bool) {
	s.update(func(st *SessionState) {
		st.Subscriptions = slices.DeleteFunc(st.Subscriptions, func(u string) bool { return u == uri })
		if on {
			st.Subscriptions = append(st.Subscriptions, uri)
		}
	})
}

// postBatch serves a JSON array body: allowed in 2025-03-26 sessions only.
// The answers go back as one JSON array.
func (h *HTTPHandler) postBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	sess, status, err := h.session(r)
	if err != nil {
		if r.Header.Get(headerSessionID) == "" {
			status, err = http.StatusBadRequest, &Error{Code: CodeInvalidRequest, Message: batchRefusal("")}
		}
		h.writeError(w, status, nil, err)
		return
	}
	if sess.version != Version20250326 {
		h.writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: batchRefusal(sess.version)})
		return
	}
	items, err := jsonrpc.SplitBatch(body)
	if err != nil {
		h.writeError(w, http.StatusBadRequest, nil, NewError(CodeInvalidRequest, "%v", err))
		return
	}
	out := serveBatch(items, &httpBatch{h: h, r: r, sess: sess})
	if out == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header()["Content-Type"] = jsonContentType
	_, _ = w.Write(out)
}

// httpBatch serves a batch's elements in a legacy HTTP session.
type httpBatch struct {
	h    *HTTPHandler
	r    *http.Request
	sess *resolvedSession
}

func (b *httpBatch) serveRequest(m *jsonrpc.Message, p *wireParams) []byte {
	req := b.h.legacyRequest(b.r, m, b.sess)
	resp := b.h.srv.respond(b.r.Context(), req, p, nil)
	req.finish()
	return resp
}

func (b *httpBatch) deliver(m *jsonrpc.Message) {
	if ls := b.h.liveGet(b.sess.id); ls != nil {
		ls.calls.deliver(m)
	}
}

func (b *httpBatch) notified(m *jsonrpc.Message, p *wireParams) {
	if m.Method == "notifications/cancelled" && b.h.opts.Stateful {
		b.h.cancel(b.sess.id, p.RequestID)
	}
}
