package ferry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
)

// Transport connects a server to one client over a stream of messages.
// [Server.Run] calls Connect once.
type Transport interface {
	Connect(ctx context.Context) (Connection, error)
}

// Connection carries JSON-RPC messages, one per call, in both directions.
// Read is called from one goroutine at a time; Write may be called
// concurrently with Read and with itself. Close unblocks a pending Read.
type Connection interface {
	// Read returns the next message. It returns io.EOF when the client has
	// closed its end.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one message. The connection may buffer it and send several
	// together; it does not keep msg after it returns.
	Write(ctx context.Context, msg []byte) error
	Close() error
}

// ErrConnectionClosed is returned by writes on a closed connection.
var ErrConnectionClosed = errors.New("ferry: connection closed")

// StdioTransport serves one client on the process's standard input and
// output, one JSON-RPC message per line. The zero value is ready to use.
// Nothing but protocol messages is written to standard output.
type StdioTransport struct{}

// Connect implements [Transport].
func (*StdioTransport) Connect(ctx context.Context) (Connection, error) {
	return newLineConn(os.Stdin, os.Stdout), nil
}

// IOTransport serves one client over a reader and a writer, one JSON-RPC
// message per line, as stdio does. It is useful in tests and for pipes.
type IOTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements [Transport].
func (t *IOTransport) Connect(ctx context.Context) (Connection, error) {
	return newLineConn(t.Reader, t.Writer), nil
}

// lineConn reads newline-delimited messages and writes them through one
// goroutine that gathers whatever is queued into a single write, so that
// many concurrent answers cost one system call.
type lineConn struct {
	r      *bufio.Reader
	rc     io.Closer
	queue  chan *[]byte  // lines from bufPool, returned once written
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when the writer goroutine returns

	errMu sync.Mutex // guards werr
	werr  error

	closeOnce sync.Once
}

func newLineConn(r io.Reader, w io.Writer) *lineConn {
	c := &lineConn{
		r:      bufio.NewReaderSize(r, 64<<10),
		queue:  make(chan *[]byte, 256),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	if rc, ok := r.(io.Closer); ok && r != os.Stdin {
		c.rc = rc
	}
	go c.writeLoop(w)
	return c
}

// ErrMessageTooLarge is returned by a connection's Read for a message over
// its size limit; the message is skipped and the connection stays usable.
var ErrMessageTooLarge = errors.New("ferry: message too large")

// Read implements [Connection]. Blank lines are skipped; a line longer
// than [DefaultMaxBodyBytes] is skipped whole and reported as
// [ErrMessageTooLarge].
func (c *lineConn) Read(ctx context.Context) ([]byte, error) {
	for {
		line, err := c.readLine(DefaultMaxBodyBytes)
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
	select {
	case <-c.done:
		return ErrConnectionClosed
	default:
	}
	m := bufPool.Get().(*[]byte)
	*m = append(append((*m)[:0], msg...), '\n')
	select {
	case c.queue <- m:
		return c.writeErr()
	case <-c.done:
		return ErrConnectionClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *lineConn) writeErr() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.werr
}

func (c *lineConn) writeLoop(w io.Writer) {
	defer close(c.exited)
	bw := bufio.NewWriterSize(w, 64<<10)
	write := func(m *[]byte) {
		if _, err := bw.Write(*m); err != nil {
			c.errMu.Lock()
			c.werr = err
			c.errMu.Unlock()
		}
		bufPool.Put(m)
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
			if err := bw.Flush(); err != nil {
				c.errMu.Lock()
				c.werr = err
				c.errMu.Unlock()
			}
		case <-c.done:
			for {
				select {
				case m := <-c.queue:
					write(m)
				default:
					_ = bw.Flush()
					return
				}
			}
		}
	}
}

// Close implements [Connection]: queued messages are written first.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		<-c.exited
		if c.rc != nil {
			_ = c.rc.Close()
		}
	})
	return nil
}
