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
		if err := srv.Run(ctx, &ferry.StdioTransport{}); err != nil {
			logger.Error("stdio", "err", err)
			os.Exit(1)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: !*stateless, StreamResponses: !*stateless}))
	if err := serveHTTP(ctx, *addr, mux, logger, !*stateless); err != nil {
		logger.Error("http", "err", err)
		os.Exit(1)
	}
}

// serveHTTP serves h at addr/mcp until ctx is done. It logs "serving" once
// the listener is bound, with the real address (so -http :0 tells its
// port).
func serveHTTP(ctx context.Context, addr string, h http.Handler, logger *slog.Logger, stateful bool) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), h)
	go func() {
		<-ctx.Done()
		// ctx is done: give the requests in flight 5s more to finish.
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shut)
	}()
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp", "stateful", stateful)
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
