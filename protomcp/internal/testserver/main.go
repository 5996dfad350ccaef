// Command testserver serves the test service of package testservice on one
// HTTP address: Connect at / and MCP at /mcp, the MCP tools dispatched in
// process through the same Connect handler, whose interceptor refuses a
// call carrying "Authorization: Bearer blocked". The interop tests of the
// TypeScript SDK clients drive it.
//
//	go run ./internal/testserver -addr 127.0.0.1:8080
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
	"syscall"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "serve HTTP at `ADDR`")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(logger, *addr); err != nil {
		logger.Error("testserver", "err", err)
		os.Exit(1)
	}
}

// blocked refuses the calls whose credentials are "Bearer blocked", as a
// service's authentication interceptor would.
var blocked = connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if req.Header().Get("Authorization") == "Bearer blocked" {
			return nil, connect.NewError(connect.CodePermissionDenied, errors.New("this token may not call "+req.Spec().Procedure))
		}
		return next(ctx, req)
	}
})

func run(logger *slog.Logger, addr string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	files, sd, err := testservice.Files(ctx)
	if err != nil {
		return err
	}
	api := testservice.Handler(sd, nil, connect.WithInterceptors(blocked))
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: logger})
	if err := protomcp.AddDescribed(srv, files, testservice.Service, protomcp.Handler(api), nil); err != nil {
		return err
	}
	if err := srv.Check(); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.Handle("/mcp", ferry.NewHTTPHandler(srv, nil))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	logger.Info("serving", "connect", "http://"+ln.Addr().String()+"/", "mcp", "http://"+ln.Addr().String()+"/mcp")
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
