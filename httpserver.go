package ferry

import (
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
// serving. TLS,
// routing, authentication and graceful shutdown stay with the caller:
//
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	if err != nil { ... }
//	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
//	err = hs.Serve(ln)
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
