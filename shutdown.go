package ferry

import (
	"context"
	"sync"
	"sync/atomic"
)

// errShuttingDown answers a request that arrives while its transport
// shuts down.
var errShuttingDown = &Error{Code: CodeInternalError,
	Message: "unavailable: the server is shutting down; send the request again (to another replica)"}

// errIDInFlight answers a request whose id is that of a request of the
// same session (or connection) still in flight, which the spec forbids:
// served, it would take the first's place in the table that
// notifications/cancelled, DELETE and a shutdown reach it through, and a
// handler of the first waiting on its context would run on for ever.
var errIDInFlight = &Error{Code: CodeInvalidRequest,
	Message: "invalid request: a request with this id is still in flight in this session; give each request an id of its own"}

// shutdownResult is the result of a tool call cancelled because its
// transport's shutdown reached its deadline.
const shutdownResult = "unavailable: the server shut down before the tool finished; call it again"

// drain tracks the requests and streams of one transport (an
// [HTTPHandler], a connection of [Server.Run]) so that Shutdown can wait
// for them. It costs two atomic additions per request: a request enters
// by counting itself and then checking that no shutdown began (enter), so
// that Shutdown, which marks the shutdown and then reads the count, sees
// every request that did not see the mark.
type drain struct {
	active   atomic.Int64
	stopping atomic.Bool
	hardStop atomic.Bool

	closing   chan struct{} // closed when the shutdown begins: long-lived streams end
	closeOnce sync.Once
	// idle ends once nothing is active after the shutdown began.
	idle     context.Context //nolint:containedctx // a signal others can watch with context.AfterFunc
	idleDone context.CancelFunc

	// hard ends when the shutdown's context does: what still runs is
	// cancelled.
	hard       context.Context //nolint:containedctx // the transport's own stop signal, watched by its requests' contexts
	hardCancel context.CancelFunc
}

func newDrain() *drain {
	d := &drain{closing: make(chan struct{})}
	d.hard, d.hardCancel = context.WithCancel(context.Background())
	d.idle, d.idleDone = context.WithCancel(context.Background())
	return d
}

// watch makes c the context of a request of the method m (nil for an
// unknown one), served in ctx, that ends when the shutdown's deadline
// passes, and reports whether the request needs one: a method that runs
// the application's code does (the row's runsApp), except a tools/call,
// whose own context watches the shutdown (see [Server.callContext]); the
// others end quickly. The caller calls finish on c once the request has
// been answered.
func (d *drain) watch(ctx context.Context, m *method, c *callCtx) bool {
	if m == nil || !m.runsApp || m.target == targetTool {
		return false
	}
	c.initStop(ctx, d)
	return true
}

// enter counts one more request or stream. Every enter is matched by a
// leave.
func (d *drain) enter() { d.active.Add(1) }

// leave ends what enter counted.
func (d *drain) leave() {
	if d.active.Add(-1) == 0 && d.stopping.Load() {
		d.idleDone()
	}
}

// refuses reports whether a new request must be refused: the shutdown
// began. The caller has entered.
func (d *drain) refuses() bool { return d.stopping.Load() }

// hardStopped reports whether the shutdown's deadline passed, so that
// what was still running was cancelled.
func (d *drain) hardStopped() bool { return d != nil && d.hardStop.Load() }

// close ends the long-lived streams (also at the end of a stdio input).
func (d *drain) close() { d.closeOnce.Do(func() { close(d.closing) }) }

// shutdown refuses new requests, ends the long-lived streams, and waits
// until nothing is active or ctx ends; then it cancels what still runs
// (hard, and onHard for what the transport cancels itself) and returns
// ctx's error without waiting for it.
func (d *drain) shutdown(ctx context.Context, onHard func()) error {
	d.stopping.Store(true)
	d.close()
	if d.active.Load() == 0 {
		d.idleDone()
	}
	select {
	case <-d.idle.Done():
		return nil
	case <-ctx.Done():
	}
	d.hardStop.Store(true)
	d.hardCancel()
	if onHard != nil {
		onHard()
	}
	return ctx.Err()
}

// Shutdown drains the handler: it stops accepting new requests, lets the
// running ones finish, and returns nil once they have, or ctx's error
// when ctx ends first, after cancelling those still running. In detail:
//
//   - A new request (a POST of a request, or a GET) gets HTTP 503 with a
//     JSON-RPC error saying the server is shutting down. It did not run,
//     so a proxy in front of replicas may retry it on another one (as it
//     may the 503 of a full session store). The client's
//     answers to the server's questions ([Elicit], [CreateMessage]),
//     notifications/cancelled and DELETE are still served, so that the
//     running calls can finish. In a 2025-03-26 batch, each request gets
//     that error.
//   - GET streams end at once with a clean end of the response, and a
//     2026-07-28 subscriptions/listen ends with its (successful) result:
//     the client reconnects, to another replica or once this one is back.
//   - When ctx ends, the handlers still running see their contexts
//     cancelled. A tool call then answers with the result "unavailable:
//     the server shut down before the tool finished" (isError), once its
//     handler returns; Shutdown does not wait for that.
//
// Shutdown may be called more than once; every call waits. The handler
// stays shut down.
//
// With an [http.Server], call the handler's Shutdown first, then the
// http.Server's, since the latter neither ends streaming responses nor
// cancels request contexts: it would wait for every GET stream and listen
// until its context ends. Give the http.Server's Shutdown a moment past
// the handler's deadline, so that the answers of the cancelled calls are
// written before the connections close. [ShutdownHTTPServer] does both,
// in that order.
func (h *HTTPHandler) Shutdown(ctx context.Context) error {
	err := h.drain.shutdown(ctx, h.cancelLive)
	if h.relay != nil {
		// Only now: the calls draining may still get their answers through
		// other replicas.
		if rerr := h.relay.stop(ctx); err == nil {
			err = rerr
		}
	}
	return err
}

// cancelLive cancels the requests and streams of every stateful session.
func (h *HTTPHandler) cancelLive() {
	h.liveMu.Lock()
	lives := make([]*liveSession, 0, len(h.live))
	for _, ls := range h.live {
		lives = append(lives, ls)
	}
	h.liveMu.Unlock()
	for _, ls := range lives {
		ls.cancelAll()
	}
}

// Shutdown drains every connection [Server.Run] serves (stdio, an
// [IOTransport]): each stops serving new requests, which are answered with
// an error saying the server is shutting down, while the client's answers
// to the server's questions and its cancellations are still read; a
// subscriptions/listen ends with its result. Once a connection's requests
// have been answered, it is closed and its Run returns nil. When ctx ends
// first, the requests still running are cancelled (a tool call answers
// "unavailable: the server shut down before the tool finished", and other
// requests their error) and Shutdown returns ctx's error without waiting
// for them. Run called after Shutdown returns [ErrServerClosed].
//
// Shutdown does not touch an [HTTPHandler], which has its own Shutdown.
func (s *Server) Shutdown(ctx context.Context) error {
	s.runMu.Lock()
	s.closed = true
	conns := make([]*streamConn, 0, len(s.runs))
	for c := range s.runs {
		conns = append(conns, c)
	}
	s.runMu.Unlock()
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = c.shutdown(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shutdown drains the connection; once it is idle, Run closes it and
// returns.
func (c *streamConn) shutdown(ctx context.Context) error {
	return c.drain.shutdown(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, cancel := range c.inflight {
			cancel()
		}
	})
}
