package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// DialHandler connects to the MCP server h serves, in process: each
// request is served by h.ServeHTTP through a [HandlerTransport], with no
// socket. Requests go to http://localhost/mcp, so h may be the MCP
// handler itself or a mux serving it at /mcp. opts may be nil; its
// HTTPClient is not used.
func DialHandler(ctx context.Context, h http.Handler, opts *Options) (*Client, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.HTTPClient = &http.Client{Transport: &HandlerTransport{Handler: h}}
	return DialHTTP(ctx, "http://localhost/mcp", &o)
}

// HandlerTransport is an [http.RoundTripper] that serves each request with
// Handler in process. The response body is a pipe the handler writes into
// as it serves, so that streamed (SSE) answers arrive as they are written;
// closing the body, or cancelling the request's context, cancels the
// handler's request context. A HandlerTransport may be shared and used
// concurrently.
type HandlerTransport struct {
	// Handler serves the requests.
	Handler http.Handler
	// RemoteAddr is the address requests appear to come from. If empty,
	// "127.0.0.1:1".
	RemoteAddr string
}

// RoundTrip implements [http.RoundTripper]. It returns once the handler
// has written its header (or a body byte, or returned).
func (t *HandlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	in := req.Clone(ctx)
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = req.URL.RequestURI()
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	in.RemoteAddr = t.RemoteAddr
	if in.RemoteAddr == "" {
		in.RemoteAddr = "127.0.0.1:1"
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	go func() {
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				w.fail(fmt.Errorf("client: the handler panicked: %v", p))
				return
			}
			w.writeHeader(http.StatusOK)
			_ = pw.Close()
		}()
		t.Handler.ServeHTTP(w, in)
	}()
	select {
	case <-w.ready:
	case <-ctx.Done():
		select {
		case <-w.ready: // the handler answered, then returned (and cancelled ctx)
		default:
			_ = pr.CloseWithError(ctx.Err())
			return nil, ctx.Err()
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	// A read waits for the handler to write: when the request's context
	// ends, it must end too, even if the handler never writes again.
	unwatch := context.AfterFunc(req.Context(), func() { _ = pr.CloseWithError(context.Cause(req.Context())) })
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.sent,
		Body:          &pipeBody{PipeReader: pr, cancel: cancel, unwatch: unwatch},
		ContentLength: -1,
		Request:       req,
	}, nil
}

// pipeBody is a response body that cancels the handler when closed.
type pipeBody struct {
	*io.PipeReader
	cancel  context.CancelFunc
	unwatch func() bool // stops closing the pipe when the request's context ends
}

func (b *pipeBody) Close() error {
	b.unwatch()
	b.cancel()
	return b.PipeReader.Close()
}

// pipeWriter is the [http.ResponseWriter] of a [HandlerTransport] request.
type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter

	once   sync.Once     // closes ready
	ready  chan struct{} // closed once the header is sent (or the handler failed)
	status int           // set before ready is closed
	sent   http.Header   // the header as sent, set before ready is closed
	err    error         // the handler's failure before any header, set before ready is closed
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(status int) {
	if status >= 100 && status < 200 {
		return // informational answers are not passed on
	}
	w.writeHeader(status)
}

func (w *pipeWriter) writeHeader(status int) {
	w.once.Do(func() {
		w.status, w.sent = status, w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.writeHeader(http.StatusOK)
	return w.pw.Write(p)
}

// Flush implements [http.Flusher]: writes reach the reader at once, so it
// only sends the header.
func (w *pipeWriter) Flush() { w.writeHeader(http.StatusOK) }

// fail ends the response with err: before the header, RoundTrip returns
// it; after, reading the body does.
func (w *pipeWriter) fail(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.ready)
	})
	_ = w.pw.CloseWithError(err)
}
