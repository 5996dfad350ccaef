package ferry

import (
	"context"
	"encoding/json"
	"sync"
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
