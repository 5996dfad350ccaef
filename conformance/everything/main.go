// Command everything serves the fixtures of the official MCP conformance
// suite, built only from Ferry's public API.
//
//	everything -http 127.0.0.1:3001   # Streamable HTTP at /mcp, stateful sessions
//	everything -http 127.0.0.1:0      # the same on a free port, logged once bound
//	everything -http ADDR -stateless  # the same with stateless (signed) sessions
//	everything                        # stdio
//
// -versions narrows the protocol versions served (comma-separated), so a
// client's initialize negotiates a chosen one.
package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
)

// version counts the changes of the watched resource.
var version atomic.Int64

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP at `ADDR`/mcp instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: stateless sessions instead of stateful ones")
	versions := flag.String("versions", "", "comma-separated protocol versions to serve (default: all)")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	opts := &ferry.ServerOptions{
		Logger:       logger,
		Instructions: "Fixtures for the MCP conformance suite.",
	}
	if *versions != "" {
		opts.ProtocolVersions = strings.Split(*versions, ",")
	}
	srv := ferry.NewServer("ferry-everything", "0.1.0", opts)
	addTools(srv)
	addTypedTools(srv)
	addModernTools(srv)
	addPrompts(srv)
	addModernPrompts(srv)
	addResources(srv)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		// A signal drains the connection: the requests in flight get 5s
		// to finish, then Run returns.
		go func() {
			<-ctx.Done()
			drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(drain)
		}()
		if err := srv.Run(context.WithoutCancel(ctx), &ferry.StdioTransport{}); err != nil && !errors.Is(err, ferry.ErrServerClosed) {
			logger.Error("stdio", "err", err)
			os.Exit(1)
		}
		return
	}
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: !*stateless, StreamResponses: !*stateless})
	if err := serveHTTP(ctx, *addr, h, logger, !*stateless); err != nil {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

// serveHTTP serves h at addr/mcp until ctx is done. It logs "serving" once
// the listener is bound, with the real address (so -http :0 tells its
// port).
func serveHTTP(ctx context.Context, addr string, h *ferry.HTTPHandler, logger *slog.Logger, stateful bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		// ctx is done: the handler first (streams end, new requests get
		// 503), the requests in flight get 5s more to finish.
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		stopped <- ferry.ShutdownHTTPServer(drain, hs, h)
	}()
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp", "stateful", stateful)
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	if err := <-stopped; err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
