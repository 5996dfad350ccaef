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
//
// # Replicas
//
// -replicas N (with -http) serves the fixture as N replicas in one
// process: each is a server of its own, with its own [ferry.HTTPHandler]
// on a loopback port of its own, and a round-robin reverse proxy at
// -http sends every request (GET streams and DELETEs included) to the
// next replica in turn, so no two requests of a session need land on the
// same one. The replicas share a session store and a task store, a
// [ferry.MemorySessionStore] and [ferry.MemoryTaskStore] unless -redis URL names a Redis server
// (then a [redisstore.Store] and its [redisstore.Store.Tasks], their keys under -redis-prefix), and the
// signing keys, as replicas behind one endpoint must. -redis also works
// with one replica. What the fixtures change (the watched resource, the
// dynamic tool and prompt) changes on every replica at once.
//
//	everything -http 127.0.0.1:0 -replicas 2
//	everything -http 127.0.0.1:0 -replicas 2 -redis redis://127.0.0.1:6379/0
//
// On SIGTERM or SIGINT every replica is drained at once: the requests in
// flight get 5s to finish. Then the store is closed.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/redisstore"
)

// config is what the flags ask for.
type config struct {
	addr        string   // serve Streamable HTTP here; stdio if empty
	stateless   bool     // stateless legacy sessions
	versions    []string // the protocol versions served; all if nil
	replicas    int      // how many replicas serve behind the proxy
	redisURL    string   // the Redis server of the session store; memory if empty
	redisPrefix string   // the store's key prefix in Redis
}

func main() {
	cfg := config{}
	flag.StringVar(&cfg.addr, "http", "", "serve Streamable HTTP at `ADDR`/mcp instead of stdio")
	flag.BoolVar(&cfg.stateless, "stateless", false, "with -http: stateless sessions instead of stateful ones")
	versions := flag.String("versions", "", "comma-separated protocol versions to serve (default: all)")
	flag.IntVar(&cfg.replicas, "replicas", 1, "with -http: serve `N` replicas behind a round-robin proxy at ADDR")
	flag.StringVar(&cfg.redisURL, "redis", "", "with -http: keep sessions in the Redis server at `URL` (redis://host:port/db) instead of memory")
	flag.StringVar(&cfg.redisPrefix, "redis-prefix", fmt.Sprintf("ferry-everything:%d:", os.Getpid()),
		"with -redis: the `PREFIX` of the store's keys; the default, from the process id, keeps two runs apart")
	flag.Parse()
	if *versions != "" {
		cfg.versions = strings.Split(*versions, ",")
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, logger); err != nil {
		logger.Error("everything", "err", err)
		os.Exit(1)
	}
}

// run serves the fixture as cfg says until ctx is done.
func run(ctx context.Context, cfg config, logger *slog.Logger) error {
	switch {
	case cfg.replicas < 1:
		return fmt.Errorf("-replicas %d: want 1 or more", cfg.replicas)
	case cfg.addr == "" && (cfg.replicas > 1 || cfg.redisURL != ""):
		return errors.New("-replicas and -redis need -http")
	case cfg.addr == "":
		return serveStdio(ctx, new(fixture).newServer(serverOptions(logger, cfg.versions, nil)))
	}
	store, taskStore, closeStore, err := openStore(ctx, cfg.redisURL, cfg.redisPrefix)
	if err != nil {
		return err
	}
	// One key for every replica: each verifies what another signed.
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	f := new(fixture)
	hs := make([]*ferry.HTTPHandler, cfg.replicas)
	for i := range hs {
		opts := serverOptions(logger.With("replica", i+1), cfg.versions, [][]byte{key})
		opts.Tasks.Store = taskStore
		srv := f.newServer(opts)
		hs[i] = ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{
			Stateful:        !cfg.stateless,
			StreamResponses: !cfg.stateless,
			SessionStore:    store,
		})
	}
	attrs := []any{"stateful", !cfg.stateless, "replicas", cfg.replicas, "store", storeName(cfg.redisURL)}
	if cfg.replicas == 1 {
		err = serveHTTP(ctx, cfg.addr, hs[0], logger, attrs...)
	} else {
		err = serveReplicas(ctx, cfg.addr, hs, logger, attrs...)
	}
	if cerr := closeStore(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing the session store: %w", cerr))
	}
	return err
}

// serveStdio serves srv on stdin and stdout until ctx is done; then the
// requests in flight get drainTimeout to finish, and it returns.
func serveStdio(ctx context.Context, srv *ferry.Server) error {
	go func() {
		<-ctx.Done()
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), drainTimeout)
		defer cancel()
		_ = srv.Shutdown(drain)
	}()
	if err := srv.Run(context.WithoutCancel(ctx), &ferry.StdioTransport{}); err != nil && !errors.Is(err, ferry.ErrServerClosed) {
		return fmt.Errorf("stdio: %w", err)
	}
	return nil
}

// openStore returns the session and task stores the replicas share: the
// Redis ones at redisURL, or memory ones if redisURL is empty, and the
// function that closes them.
func openStore(ctx context.Context, redisURL, prefix string) (ferry.SessionStore, ferry.TaskStore, func() error, error) {
	if redisURL == "" {
		return &ferry.MemorySessionStore{}, ferry.NewMemoryTaskStore(), func() error { return nil }, nil
	}
	dial, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := redisstore.Dial(dial, redisURL, &redisstore.Options{Prefix: prefix})
	if err != nil {
		return nil, nil, nil, err
	}
	return s, s.Tasks(), s.Close, nil
}

// storeName names the store in the "serving" line.
func storeName(redisURL string) string {
	if redisURL == "" {
		return "memory"
	}
	return "redis"
}
