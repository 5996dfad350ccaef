// Command server serves the benchmark tools with one implementation.
//
// Usage:
//
//	server -impl gosdk -http 127.0.0.1:0          # stateless Streamable HTTP at /mcp
//	server -impl gosdk -http 127.0.0.1:0 -sessions # stateful sessions in memory
//	server -impl gosdk -stdio                      # newline-delimited JSON on stdin/stdout
//
// With -quit, a POST to /quit ends an HTTP server as SIGINT does; the
// instruction counts use it because valgrind's callgrind cannot deliver a
// signal to a Go program.
//
// In HTTP mode it prints "listening http://ADDR/mcp" on stdout once ready.
// On SIGUSR1 it runs a GC and prints one line to stderr:
//
//	STATS goroutines=N heap_inuse=BYTES heap_alloc=BYTES sys=BYTES
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry/bench"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

// run parses the flags and serves until interrupted or, on stdio, until
// the end of the input.
func run() error {
	implName := flag.String("impl", "", "implementation: ferry, ferrytyped, gosdk, mcpgo, limit or floor")
	addr := flag.String("http", "", "serve Streamable HTTP at this address")
	stdio := flag.Bool("stdio", false, "serve on stdin and stdout")
	sessions := flag.Bool("sessions", false, "HTTP only: keep stateful sessions in memory")
	quit := flag.Bool("quit", false, "HTTP only: a POST to /quit stops the server")
	flag.Parse()

	impl, ok := bench.Lookup(*implName)
	if !ok {
		return fmt.Errorf("unknown -impl %q", *implName)
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go reportStats(usr1)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch {
	case *stdio && impl.ServeStdio == nil:
		return fmt.Errorf("%s has no stdio mode", impl.Name)
	case *stdio:
		if err := impl.ServeStdio(ctx, os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	case *addr != "":
		return serveHTTP(ctx, impl, *addr, *sessions, *quit)
	}
	return errors.New("need -http ADDR or -stdio")
}

func serveHTTP(ctx context.Context, impl bench.Impl, addr string, sessions, quit bool) error {
	h := impl.Handler(sessions)
	if h == nil {
		return fmt.Errorf("%s has no stateful=%t HTTP mode", impl.Name, sessions)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	if quit {
		mux.HandleFunc("POST /quit", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
			stop()
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	// cmd/load waits for this line to learn the address.
	if _, err := fmt.Fprintf(os.Stdout, "listening http://%s/mcp\n", ln.Addr()); err != nil {
		ln.Close()
		return fmt.Errorf("announcing the address: %w", err)
	}
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// reportStats prints runtime statistics to stderr for each signal on c.
func reportStats(c <-chan os.Signal) {
	for range c {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(os.Stderr, "STATS goroutines=%d heap_inuse=%d heap_alloc=%d sys=%d\n",
			runtime.NumGoroutine(), ms.HeapInuse, ms.HeapAlloc, ms.Sys)
	}
}
