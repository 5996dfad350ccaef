package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-mcp/ferry"
)

// replicaHeader names, in each response of the round-robin proxy, the
// replica that served it (1 for the first). Only the tests read it.
const replicaHeader = "X-Ferry-Replica"

// drainTimeout is how long the requests in flight get to finish on
// SIGTERM before they are cancelled.
const drainTimeout = 5 * time.Second

// serveHTTP serves h at addr/mcp until ctx is done. It logs "serving" once
// the listener is bound, with the real address (so -http :0 tells its
// port) and attrs.
func serveHTTP(ctx context.Context, addr string, h *ferry.HTTPHandler, logger *slog.Logger, attrs ...any) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mcpMux(h))
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		// ctx is done: the handler first (streams end, new requests get
		// 503), the requests in flight get drainTimeout more to finish.
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
		defer cancel()
		stopped <- ferry.ShutdownHTTPServer(drain, hs, h)
	}()
	logger.Info("serving", append([]any{"url", "http://" + ln.Addr().String() + "/mcp"}, attrs...)...)
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return drained(<-stopped)
}

// serveReplicas serves each of hs on a loopback port of its own, behind a
// round-robin reverse proxy at addr (every request, GET streams and
// DELETEs included, goes to the next replica in turn), until ctx is done.
// Then it drains every replica at once (see [ferry.ShutdownHTTPServer])
// and shuts the proxy down. It logs "replica" once per replica and
// "serving" once, with the proxy's URL and attrs, when all are bound.
func serveReplicas(ctx context.Context, addr string, hs []*ferry.HTTPHandler, logger *slog.Logger, attrs ...any) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	replicas, err := listenReplicas(hs)
	if err != nil {
		ln.Close()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var serving sync.WaitGroup
	serveErrs := make([]error, len(replicas)+1) // each replica's Serve, then the proxy's
	targets := make([]*url.URL, len(replicas))
	for i, r := range replicas {
		targets[i] = &url.URL{Scheme: "http", Host: r.ln.Addr().String()}
		logger.Info("replica", "n", i+1, "url", targets[i].String()+"/mcp")
		serving.Go(func() {
			if err := r.hs.Serve(r.ln); !errors.Is(err, http.ErrServerClosed) {
				serveErrs[i] = err
				cancel() // one replica down takes the others down with it
			}
		})
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	proxy := ferry.NewHTTPServer(ln.Addr().String(), fullDuplex(newProxy(targets, transport, logger)))
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		stopped <- shutdownReplicas(context.WithoutCancel(ctx), proxy, replicas)
		transport.CloseIdleConnections()
	}()
	logger.Info("serving", append([]any{"url", "http://" + ln.Addr().String() + "/mcp"}, attrs...)...)
	if err := proxy.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		serveErrs[len(replicas)] = err
		cancel()
	}
	stopErr := <-stopped
	serving.Wait()
	return errors.Join(errors.Join(serveErrs...), drained(stopErr))
}

// replica is one handler on a loopback listener of its own.
type replica struct {
	h  *ferry.HTTPHandler
	hs *http.Server
	ln net.Listener
}

// listenReplicas binds a loopback port for each of hs.
func listenReplicas(hs []*ferry.HTTPHandler) ([]replica, error) {
	replicas := make([]replica, 0, len(hs))
	for _, h := range hs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, r := range replicas {
				r.ln.Close()
			}
			return nil, err
		}
		replicas = append(replicas, replica{h: h, hs: ferry.NewHTTPServer(ln.Addr().String(), mcpMux(h)), ln: ln})
	}
	return replicas, nil
}

// shutdownReplicas drains every replica at once, giving the requests in
// flight drainTimeout to finish, then shuts the proxy down, which by then
// only finishes copying the replicas' last answers.
func shutdownReplicas(ctx context.Context, proxy *http.Server, replicas []replica) error {
	drain, cancel := context.WithTimeout(ctx, drainTimeout)
	defer cancel()
	errs := make([]error, len(replicas)+1)
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Go(func() { errs[i] = ferry.ShutdownHTTPServer(drain, r.hs, r.h) })
	}
	wg.Wait()
	grace, cancelGrace := context.WithTimeout(ctx, ferry.ShutdownGrace)
	defer cancelGrace()
	errs[len(replicas)] = proxy.Shutdown(grace)
	return errors.Join(errs...)
}

// newProxy returns a reverse proxy that sends each request to the next of
// targets in turn and flushes every write at once, so that SSE streams
// flow. The Host header stays the client's, as the replicas check it
// (and Origin against it).
func newProxy(targets []*url.URL, transport http.RoundTripper, logger *slog.Logger) *httputil.ReverseProxy {
	names := make(map[string]string, len(targets))
	for i, t := range targets {
		names[t.Host] = strconv.Itoa(i + 1)
	}
	var next atomic.Uint64
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[(next.Add(1)-1)%uint64(len(targets))])
			r.Out.Host = r.In.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Header.Set(replicaHeader, names[resp.Request.URL.Host])
			return nil
		},
		FlushInterval: -1,
		Transport:     transport,
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil { // not just the client gone
				logger.Warn("proxy", "method", r.Method, "url", r.URL.String(), "err", err)
			}
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// fullDuplex lets h read a request's body after it starts the answer, as
// a proxy does: its transport may still be reading the body's end when a
// replica's answer starts, and the proxy passes the headers on at once.
// Without full duplex, net/http reads and closes what is left of the body
// when the headers go out; the transport's read then fails, and it closes
// the connection to the replica in the middle of the answer (the client
// sees its stream cut just after it began).
func fullDuplex(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex() // fails only for HTTP/2, which is full duplex anyway
		// Closing the body ourselves keeps a full-duplex request whose
		// upstream refused the connection from panicking net/http on the
		// connection's next request (golang/go#68560).
		defer func() { _ = r.Body.Close() }()
		h.ServeHTTP(w, r)
	})
}

// mcpMux serves h at /mcp.
func mcpMux(h http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

// drained is the error of a shutdown less the deadlines, which only say
// that calls had to be cancelled.
func drained(err error) error {
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		var kept []error
		for _, e := range joined.Unwrap() {
			kept = append(kept, drained(e))
		}
		return errors.Join(kept...)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}
