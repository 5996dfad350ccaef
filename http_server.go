package ferry

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// The limits [NewHTTPServer] sets.
const (
	serverReadHeaderTimeout = 10 * time.Second
	serverReadTimeout       = 30 * time.Second
	serverIdleTimeout       = 2 * time.Minute
	serverMaxHeaderBytes    = 64 << 10
)

// NewHTTPServer returns an [http.Server] that serves h at addr with the
// limits a server reachable by untrusted clients needs, which the zero
// http.Server lacks (with it, a client that sends its headers one byte at
// a time holds a connection for ever):
//
//   - ReadHeaderTimeout, 10s: the time to send the request line and headers.
//   - ReadTimeout, 30s: the time to send the whole request, body included.
//     net/http lifts it once the body is read, so it does not end the long
//     SSE streams (a GET stream, a subscriptions/listen, a slow tool's
//     progress) that follow.
//   - IdleTimeout, 2m: how long a kept-alive connection may wait for its
//     next request.
//   - MaxHeaderBytes, 64 KiB: room for a large bearer token, not for more.
//
// WriteTimeout stays zero on purpose: it bounds the whole response from
// the end of the request headers, so it would cut every SSE stream and
// every tool call that runs longer. Bound a tool's work with its context
// (a tool middleware with [context.WithTimeout]) instead. A GET stream or
// subscriptions/listen bounds each of its writes by
// [NotificationWriteTimeout], and lifts a WriteTimeout set here once it
// writes.
//
// ErrorLog stays nil, so net/http reports connection errors through the
// standard logger; set it (with [log/slog.NewLogLogger], say) to route
// them elsewhere. Change the returned server's fields as needed before
// serving. TLS, routing and authentication stay with the caller. To shut
// down gracefully, drain the MCP handler before the http.Server, as
// [ShutdownHTTPServer] does (see [HTTPHandler.Shutdown] for why), and let
// Serve's caller wait for the shutdown to end:
//
//	h := ferry.NewHTTPHandler(srv, nil)
//	mux.Handle("/mcp", h)
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	if err != nil { ... }
//	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
//	stopped := make(chan error, 1)
//	go func() {
//		<-ctx.Done() // a signal.NotifyContext's, say
//		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
//		defer cancel()
//		stopped <- ferry.ShutdownHTTPServer(drain, hs, h)
//	}()
//	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
//		return err
//	}
//	if err := <-stopped; err != nil && !errors.Is(err, context.DeadlineExceeded) {
//		return err
//	}
//	return nil // DeadlineExceeded: calls still running were cancelled and answered
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: serverReadHeaderTimeout,
		ReadTimeout:       serverReadTimeout,
		IdleTimeout:       serverIdleTimeout,
		MaxHeaderBytes:    serverMaxHeaderBytes,
	}
}

// ShutdownHTTPServer shuts down an http.Server serving h (directly or
// through a mux or middleware) in the order that works: first h, with
// ctx (see [HTTPHandler.Shutdown]: new requests get 503, streams end,
// running calls finish or, when ctx ends, are cancelled and answered),
// then hs, which closes its listeners and waits, for at most
// [ShutdownGrace] past the end of h's drain, for the connections still
// writing. hs's Serve returns [http.ErrServerClosed] once hs's shutdown
// begins, before this returns: wait for this to return before exiting.
// It returns the errors of both, joined; [context.DeadlineExceeded] from
// h says calls had to be cancelled.
func ShutdownHTTPServer(ctx context.Context, hs *http.Server, h *HTTPHandler) error {
	err := h.Shutdown(ctx)
	grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	return errors.Join(err, hs.Shutdown(grace))
}
