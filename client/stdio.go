package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry"
)

// DialCommand starts cmd and connects to the MCP server it runs on its
// stdin and stdout (newline-delimited JSON-RPC). cmd must not have been
// started, and its Stdin and Stdout must be nil; its Stderr is left as
// the caller set it. [Client.Close] closes the server's stdin and waits
// for it to exit, killing it after [Limits.CloseTimeout]. opts may be
// nil.
func DialCommand(ctx context.Context, cmd *exec.Cmd, opts *Options) (*Client, error) {
	c := newClient(opts)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("client: starting %s: %w", cmd.Path, err)
	}
	t := newStreamTransport(stdin, stdout, c)
	t.cmd = cmd
	return c.start(ctx, t)
}

// maxServing bounds the server requests answered at once on a stream.
const maxServing = 16

// streamTransport carries newline-delimited JSON-RPC over a pair of
// streams, such as a command's stdin and stdout.
type streamTransport struct {
	w    io.WriteCloser
	r    io.ReadCloser
	peer *Client
	cmd  *exec.Cmd // the command to stop on close, if any

	wmu sync.Mutex // serializes writes to w

	mu      sync.Mutex          // guards pending and err
	pending map[string]*waiting // requests waiting for a response, by id
	err     error               // why reading ended

	done    chan struct{} // closed when reading ends
	serving chan struct{} // a place per server request being answered
	wg      sync.WaitGroup
	ctx     context.Context    //nolint:containedctx // the lifetime of the answers to server requests, cancelled by close
	cancel  context.CancelFunc // cancels ctx
}

func newStreamTransport(w io.WriteCloser, r io.ReadCloser, peer *Client) *streamTransport {
	t := &streamTransport{w: w, r: r, peer: peer, pending: map[string]*waiting{},
		done: make(chan struct{}), serving: make(chan struct{}, maxServing)}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	go t.read()
	return t
}

func (t *streamTransport) setProtocol(string) {}

// cancelByNotice: a stream has no other way to cancel, in either era.
func (t *streamTransport) cancelByNotice(bool) bool { return true }

// read hands each message the server sends to its reader until the
// stream ends or carries something that is not JSON-RPC.
func (t *streamTransport) read() {
	err := t.readLoop()
	t.mu.Lock()
	t.err = err
	for id, p := range t.pending {
		close(p.ch)
		delete(t.pending, id)
	}
	t.mu.Unlock()
	close(t.done)
}

func (t *streamTransport) readLoop() error {
	lines := &eventReader{r: bufio.NewReader(t.r), max: t.peer.opts.Limits.MaxResponseBytes}
	for {
		line, err := lines.line()
		if errors.Is(err, io.EOF) {
			return errors.New("client: the server closed its output")
		}
		if err != nil {
			return fmt.Errorf("client: reading from the server: %w", err)
		}
		if len(line) == 0 {
			continue
		}
		m, err := decodeMessage(line)
		if err != nil {
			return fmt.Errorf("client: the server wrote a line that is %w: %.80q", err, line)
		}
		if m.isResponse() {
			t.mu.Lock()
			p, ok := t.pending[string(m.ID)]
			delete(t.pending, string(m.ID))
			t.mu.Unlock()
			if ok {
				p.ch <- m
				continue
			}
		}
		waits := t.heard()
		switch {
		case m.isRequest():
			t.serve(m, waits)
		case m.isNotification():
			t.peer.notified(m)
		}
	}
}

// waiting is a request waiting for its response.
type waiting struct {
	ch    chan *message
	watch *watch
}

// heard tells every waiting request's watch that the server sent
// something else than its answer (a line on stdio is not tied to a
// request), and returns the watches.
func (t *streamTransport) heard() []*watch {
	t.mu.Lock()
	defer t.mu.Unlock()
	ws := make([]*watch, 0, len(t.pending))
	for _, p := range t.pending {
		_ = p.watch.heard() // past its limit, the request's context ends
		ws = append(ws, p.watch)
	}
	return ws
}

// serve answers a server request in its own goroutine, or refuses it
// when too many are being answered. The idle clocks of the requests
// waiting (waits) stop meanwhile: the question may be one of theirs.
func (t *streamTransport) serve(m *message, waits []*watch) {
	select {
	case t.serving <- struct{}{}:
	default:
		_ = t.write(t.ctx, encodeResponse(m.ID, nil, &Error{Code: ferry.CodeInternalError, Message: "the client is answering too many requests"}))
		return
	}
	for _, w := range waits {
		w.hold()
	}
	t.wg.Go(func() {
		defer func() { <-t.serving }()
		defer func() {
			for _, w := range waits {
				w.release()
			}
		}()
		_ = t.write(t.ctx, t.peer.serve(t.ctx, m))
	})
}

// write sends one message as a line, giving up when ctx ends. A server
// that stops reading its input blocks the write once the pipe is full:
// then ctx ending closes the input, since part of a line may be written
// and the stream is broken either way.
func (t *streamTransport) write(ctx context.Context, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err // nothing written: the stream stays whole
	}
	stop := context.AfterFunc(ctx, func() { _ = t.w.Close() }) // before wmu: another write may hold it, blocked
	t.wmu.Lock()
	_, err := t.w.Write(append(b, '\n'))
	t.wmu.Unlock()
	if !stop() && err != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("client: writing to the server: %w", err)
	}
	return nil
}

// closedErr is the error of a request the stream ended under.
func (t *streamTransport) closedErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

func (t *streamTransport) call(ctx context.Context, r *outgoing) (*message, error) {
	id := string(idJSON(r.id))
	ch := make(chan *message, 1)
	t.mu.Lock()
	if t.err != nil {
		t.mu.Unlock()
		return nil, t.err
	}
	t.pending[id] = &waiting{ch: ch, watch: r.watch}
	t.mu.Unlock()
	forget := func() {
		t.mu.Lock()
		delete(t.pending, id)
		t.mu.Unlock()
	}
	if err := t.write(ctx, encodeRequest(r.id, r.method, r.params)); err != nil {
		forget()
		if ctx.Err() != nil {
			return nil, err
		}
		// A server that exited breaks the pipe; its output ending says why
		// more clearly, and comes at once.
		select {
		case <-t.done:
			return nil, t.closedErr()
		case <-time.After(time.Second):
			return nil, err
		}
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, t.closedErr()
		}
		return m, nil
	case <-ctx.Done():
		forget()
		return nil, ctx.Err()
	}
}

func (t *streamTransport) notify(ctx context.Context, method string, params json.RawMessage) error {
	return t.write(ctx, encodeNotification(method, params))
}

// close closes the server's input, waits for it to exit and its output to
// end, and kills a command that does not within timeout (one that ignores
// its input closing, or that keeps writing after the client stopped
// reading junk from it).
func (t *streamTransport) close(timeout time.Duration) error {
	t.cancel()
	_ = t.w.Close()
	var exited chan error
	if t.cmd != nil {
		// Wait closes the output once the command exits: a grandchild
		// holding it open does not keep the reader waiting.
		exited = make(chan error, 1)
		go func() { exited <- t.cmd.Wait() }()
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	kill := func() {
		if t.cmd != nil && t.cmd.Process != nil {
			_ = t.cmd.Process.Kill()
		}
	}
	select {
	case <-t.done:
	case <-deadline.C:
		kill()
		_ = t.r.Close() // a grandchild may hold the output open
		<-t.done
		deadline.Reset(0)
	}
	t.wg.Wait()
	if t.cmd == nil {
		return t.r.Close()
	}
	var err error
	select {
	case err = <-exited:
	case <-deadline.C:
		kill()
		err = <-exited
	}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok && !ee.Exited() {
		return nil // killed by close
	}
	if err != nil {
		return fmt.Errorf("client: the server command: %w", err)
	}
	return nil
}
