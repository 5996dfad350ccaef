package ferry

import (
	"context"
	"errors"
	"net/http"
)

// This file holds the GET stream of a stateful legacy session: where the
// session hears of list changes and resource updates.

func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Stateful || !acceptsSSE(headerValue(r.Header, "Accept")) {
		h.notAllowed(w)
		return
	}
	if h.drain.refuses() {
		h.refuseShuttingDown(w, nil)
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
		writeJSONError(w, http.StatusConflict, CodeInvalidRequest,
			"this session already has a GET stream open here: close it first (a broken one is noticed within "+keepaliveInterval.String()+"); streams are not replayed, so a Last-Event-ID cannot resume one")
		return
	}
	defer ls.closeGet()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	streamKey := "GET " + newSessionID() // DELETE ends the stream too
	ls.track(streamKey, cancel)          // a key of its own: never a JSON-RPC id
	defer ls.untrack(streamKey)
	// Subscribe before the stream opens, so that no change between the
	// client seeing the stream and the watch is lost. The subscriptions
	// are loaded once, here, and kept in the live session while the stream
	// is open.
	var claim string
	if h.relay != nil {
		// The other replicas learn that this handler holds the stream, so
		// that a subscription they take waits until it is known here.
		claim = h.relay.id
		defer h.relay.releaseStream(r.Context(), h.store, sess.id)
	}
	if _, err := ls.loadSubscriptions(ctx, h.store, sess.id, claim); err != nil {
		h.sessionError(w, r, err)
		return
	}
	wt := newWatcher(func(c change) bool { return c.uri == "" || ls.subscribed(c.uri) })
	wt.caller = ctx
	stop := h.srv.watch(wt)
	defer stop()
	sw := &streamWriter{w: w, sse: true, prime: primes(sess.version)}
	sw.open()
	// At each keepalive the subscriptions are read again, so that a
	// change another replica could not relay is seen that late at most,
	// and a session deleted elsewhere ends its stream here. (Reading the
	// session counts as its use: an open stream keeps it alive.)
	// A stream that another replica's newer GET stream of the session
	// replaced ends: a session has one, as on one replica. No holder
	// stored replaces nothing: the newer stream has ended since, or the
	// store does not keep [SessionState.Stream] (one written before the
	// field, or a replica of an older release rewrote the session).
	keepalive := func() error {
		holder, err := ls.loadSubscriptions(ctx, h.store, sess.id, "")
		if errors.Is(err, ErrSessionNotFound) {
			return err
		}
		if err == nil && claim != "" && holder != "" && holder != claim {
			return errStreamReplaced
		}
		return sw.keepalive()
	}
	// The stream ends cleanly when a shutdown begins (h.drain.closing).
	err = holdStream(ctx, h.drain.closing, keepalive, wt, func(c change) error { return sw.sendChange(c.message()) })
	if errors.Is(err, errStreamStalled) {
		h.srv.streamEnded(ctx, "GET", err)
	}
}
