package ferry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Transport connects a server to one client over a stream of messages.
// [Server.Run] calls Connect once.
type Transport interface {
	Connect(ctx context.Context) (Connection, error)
}

// Connection carries JSON-RPC messages, one per call, in both directions.
// Read is called from one goroutine at a time; Write may be called
// concurrently with Read and with itself. Close may be called at any time,
// more than once; it unblocks a pending Read, which then returns an error.
// [Server.Run] closes the connection when its context ends, and that is how
// it stops reading.
type Connection interface {
	// Read returns the next message. It returns io.EOF when the client has
	// closed its end.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one message. The connection may buffer it and send several
	// together; it does not keep msg after it returns.
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// StdioTransport serves one client on the process's standard input and
// output, one JSON-RPC message per line of at most [MaxLineBytes]. The
// zero value is ready to use, as a pointer (its Connect method has a
// pointer receiver): srv.Run(ctx, &ferry.StdioTransport{}). Nothing but
// protocol messages is written to standard output.
//
// Closing the connection unblocks a pending Read at once, but the read of
// standard input itself cannot be interrupted: a goroutine stays in it
// until the input ends or the process exits, and the line it reads is
// dropped.
type StdioTransport struct{}

// Connect implements [Transport].
func (*StdioTransport) Connect(ctx context.Context) (Connection, error) {
	return newLineConn(os.Stdin, os.Stdout), nil
}

// IOTransport serves one client over a reader and a writer, one JSON-RPC
// message per line, as stdio does. It is useful in tests and for pipes.
// Closing the connection closes Reader if it is an [io.Closer]. Writer is
// closed only when the client has stopped reading: when a write has waited
// longer than [NotificationWriteTimeout], or when writing what is queued
// at Close takes that long.
type IOTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements [Transport].
func (t *IOTransport) Connect(ctx context.Context) (Connection, error) {
	return newLineConn(t.Reader, t.Writer), nil
}

// lineConn reads newline-delimited messages on one goroutine, ahead of
// Read, so that Close can unblock Read; and it writes them through another
// goroutine that gathers whatever is queued into a single write, so that
// many concurrent answers cost one system call.
type lineConn struct {
	r      *bufio.Reader
	rc     io.Closer
	w      io.Writer
	queue  chan lineMsg
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when the writer goroutine returns

	readOnce sync.Once
	lines    chan readResult // from the reader goroutine; closed after its last error
	rerr     error           // the reader's last error, set before lines is closed

	errMu sync.Mutex // guards werr
	werr  error

	stalled   atomic.Bool // a write waited longer than its deadline
	closeOnce sync.Once
}

// lineMsg is a queued line: a buffer from bufPool, returned once written,
// and a channel closed once it was flushed, when a writer waits for that.
type lineMsg struct {
	b       *[]byte
	flushed chan struct{}
}

type readResult struct {
	msg []byte
	err error
}

func newLineConn(r io.Reader, w io.Writer) *lineConn {
	c := &lineConn{
		r:      bufio.NewReaderSize(r, 64<<10),
		w:      w,
		queue:  make(chan lineMsg, 256),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		lines:  make(chan readResult),
	}
	if rc, ok := r.(io.Closer); ok && r != os.Stdin {
		c.rc = rc
	}
	go c.writeLoop(w)
	return c
}

// Read implements [Connection]. Blank lines are skipped; a line longer
// than [MaxLineBytes] is skipped whole and reported as
// [ErrMessageTooLarge]. After Close it returns [ErrConnectionClosed].
func (c *lineConn) Read(ctx context.Context) ([]byte, error) {
	c.readOnce.Do(func() { go c.readLoop() })
	select {
	case in, ok := <-c.lines:
		if !ok {
			return nil, c.rerr
		}
		return in.msg, in.err
	case <-c.done:
		return nil, ErrConnectionClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readLoop reads lines ahead of Read, one at a time, until the input ends
// or the connection is closed.
func (c *lineConn) readLoop() {
	for {
		msg, err := c.next()
		if err != nil && !errors.Is(err, ErrMessageTooLarge) {
			c.rerr = err
			close(c.lines)
			return
		}
		select {
		case c.lines <- readResult{msg, err}:
		case <-c.done:
			return
		}
	}
}

// next returns the next line that is not blank.
func (c *lineConn) next() ([]byte, error) {
	for {
		line, err := c.readLine(MaxLineBytes)
		if len(bytes.TrimSpace(line)) > 0 {
			return bytes.TrimRight(line, "\r\n"), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLine reads up to and including the next newline, or up to EOF. A
// line over limit bytes is read to its end and dropped.
func (c *lineConn) readLine(limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.r.ReadSlice('\n')
			}
			if err == nil {
				err = ErrMessageTooLarge
			}
			return nil, err
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// Write implements [Connection].
func (c *lineConn) Write(ctx context.Context, msg []byte) error {
	return c.write(ctx, msg, nil)
}

// writeFlushed writes msg and waits until it has been handed to the
// writer, so that ctx's deadline bounds the time the client takes to read
// it. A write that misses its deadline marks the connection stalled.
func (c *lineConn) writeFlushed(ctx context.Context, msg []byte) error {
	flushed := make(chan struct{})
	if err := c.write(ctx, msg, flushed); err != nil {
		return err
	}
	select {
	case <-flushed:
		return c.writeErr()
	case <-c.exited:
		return ErrConnectionClosed
	case <-ctx.Done():
		c.stalled.Store(true)
		return ctx.Err()
	}
}

// tryWrite queues msg if that needs no waiting, and reports whether it
// did.
func (c *lineConn) tryWrite(msg []byte) bool {
	select {
	case <-c.done:
		return false
	default:
	}
	m := bufPool.Get().(*[]byte)
	*m = append(append((*m)[:0], msg...), '\n')
	select {
	case c.queue <- lineMsg{b: m}:
		return true
	default:
		bufPool.Put(m)
		return false
	}
}

func (c *lineConn) write(ctx context.Context, msg []byte, flushed chan struct{}) error {
	select {
	case <-c.done:
		return ErrConnectionClosed
	default:
	}
	m := bufPool.Get().(*[]byte)
	*m = append(append((*m)[:0], msg...), '\n')
	select {
	case c.queue <- lineMsg{m, flushed}:
		return c.writeErr()
	case <-c.done:
		return ErrConnectionClosed
	case <-ctx.Done():
		if flushed != nil {
			c.stalled.Store(true)
		}
		return ctx.Err()
	}
}

// markStalled records that the client stopped reading, so that Close does
// not wait for it.
func (c *lineConn) markStalled() { c.stalled.Store(true) }

func (c *lineConn) writeErr() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.werr
}

func (c *lineConn) setWriteErr(err error) {
	if err != nil {
		c.errMu.Lock()
		c.werr = err
		c.errMu.Unlock()
	}
}

func (c *lineConn) writeLoop(w io.Writer) {
	defer close(c.exited)
	bw := bufio.NewWriterSize(w, 64<<10)
	var waiting []chan struct{} // flushed channels of the lines written
	write := func(m lineMsg) {
		_, err := bw.Write(*m.b)
		c.setWriteErr(err)
		bufPool.Put(m.b)
		if m.flushed != nil {
			waiting = append(waiting, m.flushed)
		}
	}
	flush := func() {
		c.setWriteErr(bw.Flush())
		for _, ch := range waiting {
			close(ch)
		}
		clear(waiting)
		waiting = waiting[:0]
	}
	for {
		select {
		case m := <-c.queue:
			write(m)
		drain:
			for {
				select {
				case m := <-c.queue:
					write(m)
				default:
					break drain
				}
			}
			flush()
		case <-c.done:
			for {
				select {
				case m := <-c.queue:
					write(m)
				default:
					flush()
					return
				}
			}
		}
	}
}

// Close implements [Connection]: queued messages are written first, for
// at most [NotificationWriteTimeout]. If the client has stopped reading,
// Close does not wait for it, and closes the writer when it is an
// [io.Closer] other than standard output, so that the blocked write ends.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		if c.rc != nil {
			_ = c.rc.Close()
		}
		if !c.stalled.Load() {
			t := time.NewTimer(NotificationWriteTimeout)
			defer t.Stop()
			select {
			case <-c.exited:
				return
			case <-t.C:
			}
		}
		if wc, ok := c.w.(io.Closer); ok && c.w != io.Writer(os.Stdout) {
			_ = wc.Close()
		}
	})
	return nil
}
