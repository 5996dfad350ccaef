package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
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

	// subsMu serializes the changes of the session's subscriptions (which
	// go to the store) with the GET stream's loading of them, so that the
	// copy in subs stays the store's.
	subsMu sync.Mutex
	// updMu serializes this replica's updates of the session in the
	// store: a client's concurrent requests would otherwise only make a
	// store with optimistic updates retry (only other replicas' updates
	// need the store's own conflict handling).
	updMu sync.Mutex

	mu       sync.Mutex // guards inflight, getOpen, subs, loading and early; never held across I/O
	inflight map[string]context.CancelFunc
	getOpen  bool            // a GET stream is open: the one stream for notifications
	subs     map[string]bool // the subscriptions, while the GET stream is open
	loading  bool            // the GET stream is loading them (at its start or a keepalive)
	// early holds the subscription changes other replicas told of while
	// the GET stream was loading the subscriptions, applied once loaded,
	// since the load may have read the store before them.
	early []subscriptionChange
}

// subscriptionChange is a resources/subscribe (on) or unsubscribe.
type subscriptionChange struct {
	uri string
	on  bool
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
	ls.subs, ls.early = nil, nil
	ls.mu.Unlock()
}

// loadSubscriptions loads the session's subscriptions for its GET stream,
// which then reads them from memory, and returns the handler that holds
// the session's stream as stored ([SessionState.Stream]). With claim set
// (the handler's relay id), it stores claim as that handler, in the same
// update.
func (ls *liveSession) loadSubscriptions(ctx context.Context, store SessionStore, id, claim string) (string, error) {
	ls.subsMu.Lock()
	defer ls.subsMu.Unlock()
	ls.mu.Lock()
	ls.loading = true
	ls.mu.Unlock()
	var st *SessionState
	var err error
	if claim != "" {
		err = store.Update(ctx, id, func(s *SessionState) error {
			s.Stream = claim
			st = s.clone()
			return nil
		})
	} else {
		st, err = store.Load(ctx, id)
	}
	if err != nil {
		ls.mu.Lock()
		ls.loading, ls.early = false, nil // applied to subs already, if any
		ls.mu.Unlock()
		return "", err
	}
	subs := make(map[string]bool, len(st.Subscriptions))
	for _, uri := range st.Subscriptions {
		subs[uri] = true
	}
	ls.mu.Lock()
	for _, c := range ls.early {
		_ = subscribeSet(subs, c.uri, c.on) // within the cap: the store's list is
	}
	ls.subs, ls.early, ls.loading = subs, nil, false
	ls.mu.Unlock()
	return st.Stream, nil
}

// holdsGet reports whether the session's GET stream is open here.
func (ls *liveSession) holdsGet() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.getOpen
}

// subscriptionChanged applies a subscription change, made here or on
// another replica, to the session's GET stream, if one is open here;
// while the stream is loading the subscriptions (only another replica's
// change can arrive then: a change made here waits for subsMu), it is
// kept until they are loaded.
func (ls *liveSession) subscriptionChanged(uri string, on bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.subs != nil {
		_ = subscribeSet(ls.subs, uri, on) // within the cap: the store's list is
	}
	if ls.loading && ls.getOpen && len(ls.early) < MaxSubscriptions {
		ls.early = append(ls.early, subscriptionChange{uri, on})
	}
}

// subscribed reports whether the session subscribed to uri, as far as its
// GET stream knows.
func (ls *liveSession) subscribed(uri string) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.subs[uri]
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

// track registers a request in flight under its id, for
// notifications/cancelled, DELETE and a shutdown; false, registering
// nothing, if a request with that id is in flight already (see
// [errIDInFlight]).
func (ls *liveSession) track(id string, cancel context.CancelFunc) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.inflight == nil {
		ls.inflight = map[string]context.CancelFunc{}
	}
	if _, dup := ls.inflight[id]; dup {
		return false
	}
	ls.inflight[id] = cancel
	return true
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

// cancelRequest cancels the request in flight under id, and reports
// whether there was one.
func (ls *liveSession) cancelRequest(id json.RawMessage) bool {
	ls.mu.Lock()
	c := ls.inflight[string(id)]
	ls.mu.Unlock()
	if c != nil {
		c()
	}
	return c != nil
}

// respondIn serves req in ctx and appends its response to dst. In a
// stateful session (ls) the request joins the live session, where the
// client's answers, notifications/cancelled, DELETE and a shutdown reach
// it; a request whose id is that of one still in flight there is answered
// with [errIDInFlight] instead. Without one (ls nil), a shutdown past its
// deadline cancels the request's handler through [drain.watch] (a tool
// call's through its own context).
func (h *HTTPHandler) respondIn(ctx context.Context, ls *liveSession, req *request, p *wireParams, dst []byte) []byte {
	if ls == nil {
		if sc := h.drain.watch(ctx, req.method); sc != nil {
			defer sc.finish()
			ctx = sc
		}
		return h.srv.respond(ctx, req, p, dst)
	}
	req.calls = &ls.calls
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if !ls.track(string(req.id), cancel) {
		return appendErrorResponse(dst, req.id, errIDInFlight)
	}
	defer ls.untrack(string(req.id))
	return h.srv.respond(ctx, req, p, dst)
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

// postBatch serves a JSON array body: allowed in 2025-03-26 sessions only.
// The answers go back as one JSON array.
func (h *HTTPHandler) postBatch(w http.ResponseWriter, r *http.Request, batch *decodedBatch) {
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
	if missing := h.stepUpBatch(r, batch, sess); missing != nil {
		h.writeStepUp(w, nil, missing)
		return
	}
	// The batch's messages before its answer (the server's questions, a
	// request's progress and logs) turn the answer into an SSE stream, as
	// a single request's do; the answers then go as one event, the array.
	sw := &streamWriter{w: w, sse: acceptsSSE(r.Header.Get("Accept")), ownTimeout: hasWriteTimeout(r)}
	b := &httpBatch{h: h, r: r, sess: sess, out: sw}
	if h.opts.Stateful {
		// The batch's requests join the live session, as single requests
		// do: the client's answers and cancellations reach them.
		b.live = h.liveAcquire(sess.id)
		defer h.liveRelease(sess.id, b.live)
	}
	out := serveBatch(r.Context(), batch, b, h.batch)
	if out == nil {
		sw.mu.Lock()
		started := sw.started
		sw.closed = true
		sw.mu.Unlock()
		if !started {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	sw.finish(http.StatusOK, out)
}

// httpBatch serves a batch's elements in a legacy HTTP session.
type httpBatch struct {
	h    *HTTPHandler
	r    *http.Request
	sess legacySession
	out  *streamWriter
	live *liveSession // the stateful session's, or nil
}

func (b *httpBatch) serveRequest(m *jsonrpc.Message, p *wireParams) []byte {
	if b.h.drain.refuses() {
		return appendErrorResponse(nil, m.ID, errShuttingDown)
	}
	req := b.h.legacyRequest(b.r, m, b.sess)
	req.out = b.out
	resp := b.h.respondIn(b.r.Context(), b.live, req, p, nil)
	req.finish()
	return resp
}

func (b *httpBatch) deliver(m *jsonrpc.Message) {
	if !b.h.opts.Stateful {
		return
	}
	if err := b.h.reply(b.r.Context(), b.sess.id, m); err != nil {
		b.h.srv.logError(b.r.Context(), "relaying a reply", "err", err)
	}
}

func (b *httpBatch) notified(m *jsonrpc.Message, p *wireParams) {
	if m.Method == "notifications/cancelled" && b.h.opts.Stateful {
		if err := b.h.cancel(b.r.Context(), b.sess.id, p.RequestID); err != nil {
			b.h.srv.logError(b.r.Context(), "relaying a cancellation", "err", err)
		}
	}
}
