package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Run serves one client over t until the client closes its end (a clean
// return with a nil error, once every request has been answered) or ctx is
// done (ctx's error; requests still running are cancelled). Requests are
// served concurrently and answered as they finish.
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
	ctx, cancel := context.WithCancel(ctx)
	c := &streamConn{srv: s, conn: conn, level: LevelInfo, inflight: map[string]context.CancelFunc{},
		workers: newWorkers(), closing: make(chan struct{})}
	stop := s.watch(&watcher{notify: c.listChanged, updated: c.resourceUpdated})
	defer func() {
		stop()
		cancel()
		c.wg.Wait()
		c.workers.close()
		conn.Close()
	}()
	// The reader runs on its own so that Run returns when ctx is done even
	// while a read blocks; it ends when the connection does (for standard
	// input, when the process exits or the client closes its end).
	lines := make(chan readResult, 1)
	go func() {
		for {
			msg, err := conn.Read(ctx)
			select {
			case lines <- readResult{msg, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && !errors.Is(err, ErrMessageTooLarge) {
				return
			}
		}
	}()
	for {
		var in readResult
		select {
		case in = <-lines:
		case <-ctx.Done():
			return ctx.Err()
		}
		if errors.Is(in.err, ErrMessageTooLarge) {
			c.write(ctx, jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), "message too large: it was skipped", nil))
			continue
		}
		if in.err != nil {
			if errors.Is(in.err, io.EOF) {
				// No reply can come now: questions to the client fail, and
				// the requests that asked them finish; listen streams end.
				c.calls.close()
				close(c.closing)
				c.wg.Wait()
				return nil
			}
			return in.err
		}
		c.handle(ctx, in.msg)
	}
}

type readResult struct {
	msg []byte
	err error
}

// streamConn is the state of one stream connection (stdio): the legacy
// session it may hold and the requests in flight.
type streamConn struct {
	srv     *Server
	conn    Connection
	calls   pendingCalls
	wg      sync.WaitGroup // requests being served
	workers *workers
	closing chan struct{} // closed at EOF

	mu          sync.Mutex // guards the fields below
	version     string     // negotiated legacy version, "" before initialize
	caps        clientCaps
	level       LogLevel
	initialized bool
	subs        map[string]bool
	inflight    map[string]context.CancelFunc
}

func (c *streamConn) setLevel(l LogLevel) {
	c.mu.Lock()
	c.level = l
	c.mu.Unlock()
}

func (c *streamConn) subscribe(uri string, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil {
		c.subs = map[string]bool{}
	}
	if on {
		c.subs[uri] = true
	} else {
		delete(c.subs, uri)
	}
}

func (c *streamConn) listChanged(method string) {
	c.mu.Lock()
	ok := c.initialized
	c.mu.Unlock()
	if ok {
		c.write(context.Background(), jsonrpc.AppendRequest(nil, nil, method, nil))
	}
}

func (c *streamConn) resourceUpdated(uri string) {
	c.mu.Lock()
	ok := c.subs[uri]
	c.mu.Unlock()
	if ok {
		c.write(context.Background(), jsonrpc.AppendRequest(nil, nil, "notifications/resources/updated", uriParams(uri)))
	}
}

// uriParams returns {"uri": uri}.
func uriParams(uri string) []byte {
	return append(jsonrpc.AppendString([]byte(`{"uri":`), uri), '}')
}

func (c *streamConn) write(ctx context.Context, msg []byte) {
	if err := c.conn.Write(ctx, msg); err != nil {
		c.srv.logger.DebugContext(ctx, "write failed", "err", err)
	}
}

// handle serves one line: a message or, in a 2025-03-26 session, a batch.
func (c *streamConn) handle(ctx context.Context, line []byte) {
	if jsonrpc.IsBatch(line) {
		c.mu.Lock()
		v := c.version
		c.mu.Unlock()
		if v != Version20250326 {
			c.write(ctx, jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), batchRefusal(v), nil))
			return
		}
		items, err := jsonrpc.SplitBatch(line)
		if err != nil {
			c.write(ctx, jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), err.Error(), nil))
			return
		}
		c.wg.Add(1)
		c.workers.run(func() {
			defer c.wg.Done()
			c.batch(ctx, items)
		})
		return
	}
	in, err := decodeMessage(line)
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
		if m.Method == "initialize" {
			// Served in order: nothing else runs before the session exists.
			c.write(ctx, c.serve(ctx, m, p, nil))
			return
		}
		c.wg.Add(1)
		c.workers.run(func() {
			defer c.wg.Done()
			bp := bufPool.Get().(*[]byte)
			if resp := c.serve(ctx, m, p, (*bp)[:0]); resp != nil {
				c.write(ctx, resp)
				*bp = resp
			}
			bufPool.Put(bp)
		})
	}
}

// batch serves a 2025-03-26 batch and answers with one array.
func (c *streamConn) batch(ctx context.Context, items []json.RawMessage) {
	if out := serveBatch(items, connBatch{c, ctx}); out != nil {
		c.write(ctx, out)
	}
}

// connBatch serves a batch's elements on a connection.
type connBatch struct {
	c   *streamConn
	ctx context.Context
}

func (b connBatch) serveRequest(m *jsonrpc.Message, p *wireParams) []byte {
	return b.c.serve(b.ctx, m, p, nil)
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

// serve answers one request, appending the answer to b; it returns nil
// when the request was cancelled and gets no answer.
func (c *streamConn) serve(ctx context.Context, m *jsonrpc.Message, p *wireParams, b []byte) []byte {
	r := &request{srv: c.srv, id: m.ID, method: m.Method, calls: &c.calls, out: connOut{ctx, c.conn}, closing: c.closing}
	if p.triesModern() {
		if err := c.srv.checkModern(r, p); err != nil {
			return appendErrorResponse(b, m.ID, err)
		}
	} else if err := c.legacy(r, p); err != nil {
		return appendErrorResponse(b, m.ID, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	key := string(m.ID)
	c.mu.Lock()
	c.inflight[key] = cancel
	c.mu.Unlock()
	resp := c.srv.respond(ctx, r, p, b)
	r.finish()
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	cancelled := ctx.Err() != nil
	cancel()
	if cancelled && m.Method != "initialize" {
		return nil // a cancelled request gets no answer
	}
	return resp
}

// legacy fills r from the connection's legacy session, negotiating one on
// initialize.
func (c *streamConn) legacy(r *request, p *wireParams) error {
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
	r.version, r.caps, r.level, r.state = c.version, c.caps, c.level, c
	return nil
}

// connOut sends a request's messages on its connection.
type connOut struct {
	ctx  context.Context
	conn Connection
}

func (o connOut) send(msg []byte) error { return o.conn.Write(o.ctx, msg) }
