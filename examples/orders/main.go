// Command orders is a small REST service whose agents use the same
// handlers as everyone else: MCP tools bound to its routes, so its API-key
// middleware, its validation and its SQLite store see every tool call as
// they see any other request.
//
// REST is served under /api and MCP at /mcp, on loopback by default. The
// example is a module of its own, which the repository's go.work lists:
// run it in this directory, or from the repository root as
// go run ./examples/orders with the same flags (-db is then relative to
// the root):
//
//	ORDERS_KEYS='k-ada=ada:write,k-bob=bob:read' go run . -db orders.db -seed
//	curl -s -H 'Authorization: Bearer k-bob' http://127.0.0.1:8080/api/orders/A-1
//
// and the same order through its MCP tool (a 2026-07-28 request; the
// README shows the 2025 handshake):
//
//	curl -s http://127.0.0.1:8080/mcp -H 'Authorization: Bearer k-bob' \
//	  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
//	  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_order' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_order","arguments":{"id":"A-1"},
//	    "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
//
// The keys come from the environment: a command line (-keys) is visible
// to every user of the machine. An MCP client sends its API key as it
// would to the API (Authorization: Bearer k-ada, or X-API-Key: k-ada); the
// key travels with each tool call to the API's middleware, which decides.
// Over stdio there are no incoming headers, so -stdio serves with the key
// of $ORDERS_AS (or -as):
//
//	ORDERS_KEYS='k-ada=ada:write' ORDERS_AS=k-ada go run . -stdio
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// products are the SKUs the service sells.
var products = map[string]bool{"PEN-BLUE": true, "PEN-RED": true, "INK-1L": true, "PAPER-A4": true}

// App is the service: its store, its API behind its middleware, and its
// MCP server.
type App struct {
	Store *Store
	// Mux holds the API's routes; API is Mux behind the Auth middleware.
	Mux *http.ServeMux
	API http.Handler
	MCP *ferry.Server
}

// NewApp assembles the service over store. opts adds to the route
// binding's options; it may be nil.
func NewApp(store *Store, keys map[string]Key, logger *slog.Logger, opts *route.Options) *App {
	a := &App{Store: store, Mux: http.NewServeMux()}
	(&API{store: store, logger: logger, products: products}).Routes(a.Mux)
	a.API = Auth(keys, logger, a.Mux)
	a.MCP = NewMCP(a.API, a.Mux, logger, opts)
	return a
}

// Handler serves the API at /api/ and MCP at /mcp.
func (a *App) Handler() http.Handler {
	root := http.NewServeMux()
	root.Handle("/api/", a.API)
	root.Handle("/mcp", ferry.NewHTTPHandler(a.MCP, nil))
	return root
}

// parseKeys reads "key=user:write,key=user:read".
func parseKeys(s string) (map[string]Key, error) {
	keys := map[string]Key{}
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		key, rest, ok1 := strings.Cut(item, "=")
		user, mode, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 || key == "" || user == "" || (mode != "read" && mode != "write") {
			return nil, fmt.Errorf("-keys: %q is not key=user:read or key=user:write", item)
		}
		keys[key] = Key{User: user, Write: mode == "write"}
	}
	return keys, nil
}

// seed adds the demonstration orders, unless they exist.
func seed(ctx context.Context, s *Store) error {
	for _, o := range []Order{
		{ID: "A-1", Customer: "Ada Lovelace", Lines: []Line{{SKU: "PEN-BLUE", Qty: 3}}},
		{ID: "A-2", Customer: "Alan Turing", Lines: []Line{{SKU: "PAPER-A4", Qty: 10}}},
	} {
		if err := s.Create(ctx, o); err != nil && !errors.Is(err, errExists) {
			return err
		}
	}
	return s.Ship(ctx, "A-2")
}

func main() {
	o, err := parseFlags(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(logger, o.addr, o.dbPath, o.keyList, o.doSeed, o.stdio, o.as); err != nil {
		logger.Error("orders", "err", err)
		os.Exit(1)
	}
}

// options are the settings of the command line.
type options struct {
	addr, dbPath, keyList, as string
	doSeed, stdio             bool
}

// parseFlags reads the command line args, taking the keys from getenv
// where no flag gives them. The environment's keys are never a flag's
// default: -h and a mistyped flag print the defaults to usage, and a key
// does not belong on a terminal or in a log.
func parseFlags(args []string, getenv func(string) string, usage io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("orders", flag.ContinueOnError)
	fs.SetOutput(usage)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "serve HTTP at `ADDR` (put TLS and a firewall in front of anything but loopback)")
	fs.StringVar(&o.dbPath, "db", "orders.db", "the SQLite database `FILE`")
	fs.StringVar(&o.keyList, "keys", "", "API keys, `key=user:write,key=user:read` (default $ORDERS_KEYS; prefer it: other users can read a command line)")
	fs.BoolVar(&o.doSeed, "seed", false, "add the demonstration orders A-1 (open) and A-2 (shipped)")
	fs.BoolVar(&o.stdio, "stdio", false, "serve MCP over stdio instead of HTTP")
	fs.StringVar(&o.as, "as", "", "over stdio, call the API with this `KEY` (default $ORDERS_AS)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.keyList == "" {
		o.keyList = getenv("ORDERS_KEYS")
	}
	if o.as == "" {
		o.as = getenv("ORDERS_AS")
	}
	return o, nil
}

func run(logger *slog.Logger, addr, dbPath, keyList string, doSeed, stdio bool, as string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	keys, err := parseKeys(keyList)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		logger.Warn("no API keys: every request and tool call is refused; set ORDERS_KEYS='key=user:write,key=user:read'")
	}
	store, err := OpenStore(ctx, dbPath)
	if err != nil {
		return err
	}
	defer store.Close()
	if doSeed {
		if err := seed(ctx, store); err != nil {
			return err
		}
	}
	var opts *route.Options
	if as != "" {
		opts = &route.Options{Header: http.Header{"Authorization": {"Bearer " + as}}}
	}
	app := NewApp(store, keys, logger, opts)
	if stdio {
		return app.MCP.Run(ctx, &ferry.StdioTransport{})
	}
	return serve(ctx, logger, addr, app.Handler())
}

// serve serves h at addr until ctx is done.
func serve(ctx context.Context, logger *slog.Logger, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), h)
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	logger.Info("serving", "api", "http://"+ln.Addr().String()+"/api/", "mcp", "http://"+ln.Addr().String()+"/mcp")
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
