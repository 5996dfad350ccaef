package ferry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// Run serves one client over t (&[StdioTransport]{} for the process's
// standard input and output) until the client closes its end (a clean
// return with a nil error, once every request has been answered) or ctx is
// done (ctx's error; requests still running are cancelled). Requests are
// served concurrently and answered as they finish, except that
// initialize, logging/setLevel, resources/subscribe and
// resources/unsubscribe are served in order, and a subscriptions/listen
// holds from the moment it is read: a change made by any request read
// after it reaches it.
//
// A client that stops reading is not waited for: when a notification or
// an answer has waited [NotificationWriteTimeout] for room in the
// connection's output (which holds 256 messages beyond what the client has
// taken), Run logs it, closes the connection and returns an error. At most
// [MaxRequestsInFlight] requests of the connection are served at once
// (see there), so that a client that sends without reading cannot make the
// server hold without bound.
//
// [Server.Shutdown] drains every connection Run serves: Run then returns
// nil once the requests in flight have been answered, and a Run called
// after Shutdown returns [ErrServerClosed] at once.
//
// Run returns the problems of [Server.Check] without serving.
func (s *Server) Run(ctx context.Context, t Transport) error {
	if err := s.startServing(); err != nil {
		return fmt.Errorf("ferry: the server's start-up check failed:\n%w", err)
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	d := newDrain()
	ctx, cancel := context.WithCancel(ctx)
	c := &streamConn{srv: s, conn: conn, level: LevelInfo, inflight: map[string]context.CancelFunc{},
		workers: newWorkers(), drain: d, closing: d.closing, cancel: cancel,
		places: places{running: make(chan struct{}, MaxRequestsInFlight), waiting: make(chan struct{}, MaxRequestsInFlight),
			listens: make(chan struct{}, MaxRequestsInFlight)}}
	if !s.addRun(c) {
		cancel()
		conn.Close()
		return ErrServerClosed
	}
	defer s.removeRun(c)
	stopWatching := c.watchChanges(ctx)
	// Reading stops when the connection is closed (see [Connection]): when
	// ctx ends, or once a shutdown has drained it.
	stopClosing := context.AfterFunc(ctx, func() { conn.Close() })
	stopDrained := context.AfterFunc(d.idle, func() { conn.Close() })
	defer func() {
		stopWatching()
		stopClosing()
		stopDrained()
		c.wg.Wait()
		c.workers.close()
		conn.Close()
	}()
	return c.serveLines(ctx)
}

// addRun registers a connection Run serves, unless the server was shut
// down.
func (s *Server) addRun(c *streamConn) bool {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	if s.closed {
		return false
	}
	if s.runs == nil {
		s.runs = map[*streamConn]struct{}{}
	}
	s.runs[c] = struct{}{}
	return true
}

func (s *Server) removeRun(c *streamConn) {
	s.runMu.Lock()
	delete(s.runs, c)
	s.runMu.Unlock()
}

// places are a connection's places in flight: running ones, each taken by
// a request being served, and waiting ones, each taken by a request that
// gave its running place up while it waits for the client's answer. Both
// hold [MaxRequestsInFlight], so what one connection runs stays bounded.
type places struct {
	running, waiting chan struct{}
	listens          chan struct{} // one per open subscriptions/listen
}

// errTooManyListens refuses a subscriptions/listen beyond
// [MaxRequestsInFlight] open on one connection.
var errTooManyListens = &Error{Code: CodeInternalError,
	Message: "too many subscriptions/listen streams open on this connection (at most " + strconv.Itoa(MaxRequestsInFlight) + "): end one first"}

// admit takes a place for one more request in flight, waiting for one to
// free; it reports false when ctx ends first. done gives it back.
func (c *streamConn) admit(ctx context.Context) bool {
	select {
	case c.places.running <- struct{}{}:
		c.wg.Add(1)
		return true
	case <-ctx.Done():
		return false
	}
}

func (c *streamConn) done() {
	<-c.places.running
	c.wg.Done()
}

// watchChanges registers the connection's watcher and starts the
// goroutine that writes its notifications. stop unregisters it, cancels
// the connection's context and waits for the goroutine.
func (c *streamConn) watchChanges(ctx context.Context) (stop func()) {
	w := newWatcher(c.wants)
	w.caller = ctx
	w.direct = c.tryChange
	unwatch := c.srv.watch(w)
	var wg sync.WaitGroup
	wg.Go(func() {
		err := holdStream(ctx, c.closing, nil, w, c.writeChange)
		if errors.Is(err, errStreamStalled) && c.stall(err) {
			c.srv.streamEnded(ctx, "stdio", err)
		}
	})
	return func() {
		unwatch()
		c.cancel()
		wg.Wait()
	}
}

// serveLines reads and serves the client's lines until the client closes
// its end (nil, once every request has been answered), ctx ends (its
// error) or the client stops reading (the stall's error).
func (c *streamConn) serveLines(ctx context.Context) error {
	for {
		msg, err := c.conn.Read(ctx)
		switch {
		case errors.Is(err, ErrMessageTooLarge):
			c.write(ctx, jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), "message too large: it was skipped", nil))
			continue
		case err == nil:
			c.handle(ctx, msg)
			continue
		}
		if serr := c.stallErr(); serr != nil {
			return serr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if c.drain.idle.Err() != nil {
			return nil // a shutdown drained the connection, then closed it
		}
		if errors.Is(err, io.EOF) {
			// No reply can come now: questions to the client fail, and
			// the requests that asked them finish; listen streams end.
			c.calls.close()
			c.drain.close()
			c.wg.Wait()
			return nil
		}
		return err
	}
}

// streamConn is the state of one stream connection (stdio): the legacy
// session it may hold and the requests in flight.
type streamConn struct {
	srv     *Server
	conn    Connection
	calls   pendingCalls
	wg      sync.WaitGroup // requests being served
	workers *workers
	places  places
	closing chan struct{} // closed at EOF or when a shutdown begins: drain.closing
	cancel  context.CancelFunc
	drain   *drain

	mu          sync.Mutex // guards the fields below
	version     string     // negotiated legacy version, "" before initialize
	caps        clientCaps
	level       LogLevel
	initialized bool
	subs        map[string]bool
	toolsets    *[]string // the groups the session enabled (toolset.go), nil until it chose
	inflight    map[string]context.CancelFunc
	stalled     error // why the connection was ended, if the client stopped reading
}

func (c *streamConn) setLevel(ctx context.Context, l LogLevel) error {
	c.mu.Lock()
	c.level = l
	c.mu.Unlock()
	return nil
}

func (c *streamConn) subscribe(ctx context.Context, uri string, on bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil {
		c.subs = map[string]bool{}
	}
	return subscribeSet(c.subs, uri, on)
}

// wants reports whether the client asked to hear of ch: list changes once
// initialized, updates of the resources it subscribed to.
func (c *streamConn) wants(ch change) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch.uri == "" {
		return c.initialized
	}
	return c.subs[ch.uri]
}

// tryChange writes a change notification if that needs no waiting.
func (c *streamConn) tryChange(ch change) bool {
	return tryWrite(c.conn, ch.message())
}

// tryWrite writes msg on conn if that needs no waiting, and reports
// whether it did.
func tryWrite(conn Connection, msg []byte) bool {
	lc, ok := conn.(interface{ tryWrite([]byte) bool })
	return ok && lc.tryWrite(msg)
}

// writeChange sends one change notification, within
// [NotificationWriteTimeout].
func (c *streamConn) writeChange(ch change) error {
	return writeWithin(context.Background(), c.conn, ch.message())
}

// message returns the notification telling of ch.
func (ch change) message() []byte {
	var params []byte
	if ch.uri != "" {
		params = uriParams(ch.uri)
	}
	return jsonrpc.AppendRequest(nil, nil, ch.method, params)
}

// writeWithin writes msg within [NotificationWriteTimeout], or fails with
// [errStreamStalled].
func writeWithin(ctx context.Context, conn Connection, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, NotificationWriteTimeout)
	defer cancel()
	var err error
	if lc, ok := conn.(interface {
		writeFlushed(context.Context, []byte) error
	}); ok {
		err = lc.writeFlushed(ctx, msg)
	} else {
		err = conn.Write(ctx, msg)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: a notification waited %v", errStreamStalled, NotificationWriteTimeout)
	}
	return err
}

// stall ends the connection because its client stopped reading, and
// reports whether this was the first stall: the caller that sees true
// logs it, so that one stall is logged once.
func (c *streamConn) stall(err error) (first bool) {
	c.mu.Lock()
	first = c.stalled == nil
	if first {
		c.stalled = fmt.Errorf("ferry: ended the connection: %w", err)
	}
	c.mu.Unlock()
	c.cancel()
	return first
}

func (c *streamConn) stallErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stalled
}

// uriParams returns {"uri": uri}.
func uriParams(uri string) []byte {
	return append(jsontext.AppendString([]byte(`{"uri":`), uri), '}')
}

// write sends an answer (or an error of the read loop's) on the
// connection. It waits no more than [NotificationWriteTimeout] for a
// client that does not read, then ends the connection as a stall.
func (c *streamConn) write(ctx context.Context, msg []byte) {
	if tryWrite(c.conn, msg) {
		return // the common case: room in the queue, nothing to wait for
	}
	wctx, cancel := context.WithTimeout(ctx, NotificationWriteTimeout)
	err := c.conn.Write(wctx, msg)
	cancel()
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		err = fmt.Errorf("%w: an answer waited %v", errStreamStalled, NotificationWriteTimeout)
		if sc, ok := c.conn.(interface{ markStalled() }); ok {
			sc.markStalled() // so that closing it does not wait for the client either
		}
		if c.stall(err) {
			c.srv.streamEnded(ctx, "stdio", err)
		}
	case err != nil:
		c.srv.logger.DebugContext(ctx, "write failed", "err", err)
	}
}

// handle serves one line: a message or, in a 2025-03-26 session, a batch.
func (c *streamConn) handle(ctx context.Context, line []byte) {
	if jsonrpc.IsBatch(line) {
		lim := batchLimits{}.orDefaults()
		batch, err := c.srv.decodeBatch(line, lim.items)
		if err != nil {
			c.write(ctx, appendErrorResponse(nil, nil, err))
			return
		}
		c.mu.Lock()
		v := c.version
		c.mu.Unlock()
		if v != Version20250326 {
			c.write(ctx, jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), batchRefusal(v), nil))
			return
		}
		if refusal := lim.refuse(batch.n); refusal != nil {
			c.write(ctx, refusal)
			return
		}
		c.drain.enter()
		if !c.admit(ctx) {
			c.drain.leave()
			return
		}
		c.workers.run(func() {
			defer c.drain.leave()
			defer c.done()
			c.batch(ctx, batch.items)
		})
		return
	}
	in, err := c.srv.decodeMessage(line)
	if err != nil {
		c.write(ctx, decodeError(in.m, err))
		return
	}
	m, p := in.m, in.p
	switch {
	case in.kind == jsonrpc.KindResponse:
		c.calls.deliver(m)
	case in.kind == jsonrpc.KindNotification:
		if in.perr == nil {
			c.notification(m, p)
		}
	case in.perr != nil:
		c.write(ctx, appendErrorResponse(nil, m.ID, in.perr))
	case in.kind == jsonrpc.KindRequest:
		c.request(ctx, m, p)
	}
}

// request serves one request, resolved here, as it is read. The methods
// that set up the session are served before the next line is read:
// nothing else runs before the session exists, and a change made by a
// later request reaches a subscription made by an earlier one. A
// subscriptions/listen's watcher is registered now, for the same reason;
// the listen itself runs concurrently, like every other request.
func (c *streamConn) request(ctx context.Context, m *jsonrpc.Message, p *wireParams) {
	c.drain.enter()
	if c.drain.refuses() {
		// Written before leaving: the last leave lets the drained
		// connection close, which would drop the refusal.
		c.write(ctx, appendErrorResponse(nil, m.ID, errShuttingDown))
		c.drain.leave()
		return
	}
	// The request holds no place until a worker serves it: one served
	// here, before the next line is read, or a listen trades none.
	req, err := c.newRequest(ctx, m, p, nil)
	switch {
	case err != nil:
		c.write(ctx, appendErrorResponse(nil, m.ID, err))
		c.drain.leave()
		return
	case req.row != nil && req.row.ordered:
		c.write(ctx, c.answer(req, nil))
		c.drain.leave()
		return
	}
	stop, err := c.watchListen(ctx, req)
	if err != nil {
		c.write(ctx, appendErrorResponse(nil, m.ID, err))
		c.drain.leave()
		return
	}
	if req.peer.watch != nil { // a listen lasts as long as the client wants: it takes a listen place
		c.wg.Add(1)
	} else {
		if !c.admit(ctx) {
			c.drain.leave()
			return
		}
		req.peer.places = &c.places // its running place, traded while it waits for the client
	}
	c.workers.run(func() {
		defer c.drain.leave()
		if req.peer.watch == nil {
			defer c.done()
		} else {
			defer func() { stop(); <-c.places.listens; c.wg.Done() }()
		}
		bp := bufPool.Get().(*[]byte)
		if resp := c.answer(req, (*bp)[:0]); resp != nil {
			c.write(ctx, resp)
			*bp = resp
		}
		bufPool.Put(bp)
	})
}

// newRequest returns the request of message m on the connection, in its
// era, resolved, or the error to answer instead: a modern request whose
// _meta does not hold, a legacy one before the session is initialized.
// pl are the places the request trades while it waits for the client, nil
// when it holds none.
func (c *streamConn) newRequest(ctx context.Context, m *jsonrpc.Message, p *wireParams, pl *places) (*request, error) {
	r := newRequest(ctx, m, p, peer{out: connOut{ctx, c}, calls: &c.calls, places: pl, drain: c.drain})
	if p.triesModern() {
		r.beModern()
		if err := c.srv.checkModern(r); err != nil {
			return nil, err
		}
	} else if err := c.legacy(r); err != nil {
		return nil, err
	}
	c.srv.resolve(r)
	return r, nil
}

// watchListen registers the watcher of a subscriptions/listen as it is
// read (see [request.peer]), so that it hears of every change a later
// request makes; stop unregisters it. It refuses a listen beyond
// [MaxRequestsInFlight] open at once.
func (c *streamConn) watchListen(ctx context.Context, req *request) (stop func(), err error) {
	if req.method != "subscriptions/listen" || req.err != nil {
		return nil, nil
	}
	want, err := c.srv.listenFilter(req.params)
	if err != nil {
		return nil, nil // the listen answers it
	}
	select {
	case c.places.listens <- struct{}{}:
	default:
		return nil, errTooManyListens
	}
	w := want.watcher()
	w.caller = ctx
	req.peer.watch = w
	return c.srv.watch(w), nil
}

// batch serves a 2025-03-26 batch and answers with one array.
func (c *streamConn) batch(ctx context.Context, items []incoming) {
	if out := serveBatch(ctx, items, connBatch{c, ctx}, batchLimits{}.orDefaults()); out != nil {
		c.write(ctx, out)
	}
}

// connBatch serves a batch's elements on a connection.
type connBatch struct {
	c   *streamConn
	ctx context.Context //nolint:containedctx // the batch's own: the value lives no longer than the batch
}

func (b connBatch) serveRequest(_ int, in *incoming) []byte {
	if b.c.drain.refuses() {
		return appendErrorResponse(nil, in.m.ID, errShuttingDown)
	}
	// The batch holds one running place, which its elements, served one
	// after another, trade while they wait for the client's answers.
	req, err := b.c.newRequest(b.ctx, in.m, in.p, &b.c.places)
	if err != nil {
		return appendErrorResponse(nil, in.m.ID, err)
	}
	return b.c.answer(req, nil)
}
func (b connBatch) deliver(m *jsonrpc.Message)                 { b.c.calls.deliver(m) }
func (b connBatch) notified(m *jsonrpc.Message, p *wireParams) { b.c.notification(m, p) }

func (c *streamConn) notification(m *jsonrpc.Message, p *wireParams) {
	switch m.Method {
	case "notifications/initialized":
		c.mu.Lock()
		c.initialized = true
		c.mu.Unlock()
	case "notifications/cancelled":
		if p.RequestID == nil {
			return
		}
		c.mu.Lock()
		cancel := c.inflight[string(p.RequestID)]
		c.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// answer serves req and returns its answer appended to b, or nil when
// the client cancelled it: a request the client cancelled gets no
// answer, one a shutdown cancelled does. A request whose id is that of
// one still in flight on the connection gets [errIDInFlight] instead.
func (c *streamConn) answer(req *request, b []byte) []byte {
	ctx, cancel := context.WithCancel(req.context())
	defer cancel()
	key := string(req.id)
	c.mu.Lock()
	if _, dup := c.inflight[key]; dup {
		c.mu.Unlock()
		req.finish()
		return appendErrorResponse(b, req.id, errIDInFlight)
	}
	c.inflight[key] = cancel
	c.mu.Unlock()
	resp := c.srv.serve(ctx, req, b)
	req.finish()
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	if ctx.Err() != nil && req.method != "initialize" && !c.drain.hardStopped() {
		return nil
	}
	return resp
}

// legacy fills r from the connection's legacy session, negotiating one on
// initialize.
func (c *streamConn) legacy(r *request) error {
	p := r.params
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.method == "initialize" {
		c.version = c.srv.versions.negotiate(p.ProtocolVersion)
		if c.version == "" {
			return c.srv.unsupportedVersion(p.ProtocolVersion, onlyModern)
		}
		c.caps = parseClientCaps(p.Capabilities)
	} else if c.version == "" && r.method != "ping" {
		return NewError(CodeInvalidRequest, "the session is not initialized: send initialize first, or a request with the 2026-07-28 _meta fields")
	}
	r.join(legacySession{version: c.version, caps: c.caps, level: c.level, state: c, groups: c.srv.connToolsets(c)})
	return nil
}

// connOut sends a request's messages on its connection.
type connOut struct {
	ctx context.Context //nolint:containedctx // the request's own: the value lives no longer than the request
	c   *streamConn
}

func (o connOut) send(msg []byte) error { return o.c.conn.Write(o.ctx, msg) }

// trySendChange implements [changeSender].
func (o connOut) trySendChange(msg []byte) bool { return tryWrite(o.c.conn, msg) }

// sendChange implements [changeSender]: a client that does not take msg
// within [NotificationWriteTimeout] has stopped reading, and the
// connection is ended. The stall is reported ([errStreamStalled]) only if
// it is the one that ended the connection; after another stream's, the
// connection's context error is.
func (o connOut) sendChange(msg []byte) error {
	err := writeWithin(o.ctx, o.c.conn, msg)
	if errors.Is(err, errStreamStalled) && !o.c.stall(err) {
		return context.Canceled
	}
	return err
}
