package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/shop"
	"github.com/ferry-mcp/ferry/entity"
)

const demoHelp = `usage: ferry demo [--http ADDR | --stdio] [--db PATH] [--api-key KEY]

Runs a small coffee and tea shop as an MCP server, with nothing to install:
products, customers, orders and their lines on an SQLite file, created and
seeded on first start (the same rows every time) and reused after.

Over HTTP it serves MCP at /mcp and its REST API at /api, both behind one
API key sent as "Authorization: Bearer KEY", and /healthz (alive) and
/readyz (ready: not stopping, the database answers) without it, for probes.
The workbench at /ui/ is a page that lists the tools, calls them through
/mcp with the key typed into it, and shows the calls of every client as
they come in (the page needs no key; its trace needs the same one). The key comes from --api-key,
else $FERRY_DEMO_API_KEY (which is then not printed), else a new random one
printed at start. Because a key is always required, --http may name a
non-loopback address; the demo has no TLS, so put a TLS proxy in front of
it before it leaves the machine.
--stdio serves MCP on stdin/stdout instead, needing no key (the process
is only reachable by whoever started it); nothing but protocol goes to stdout.

Each caller (the API key; over stdio, the one client) may have 32 tool
calls running at once and make 50 a second, in bursts of up to 100: a
call over them is refused as "unavailable" with the limit and the wait, so
a load test from one key must back off and retry. ferry serve sets them
(-max-calls-per-caller, -call-rate, -call-burst).

MCP tools:
  get_product, list_products      products: filter, search, orderBy, paging (read-only)
  aggregate_products              count, sum, avg, min, max of price and stock, per
                                  category or any filter field (read-only)
  get_customer, list_customers    customers: the same (read-only)
  get_order, list_orders          orders, through the REST API
  order_history                   what happened to an order
  place_order                     one transaction: stock checked, all lines or none;
                                  an idempotency_key makes a retry safe
  cancel_order                    refused as a conflict once shipped
  ship_order                      mark a placed order shipped (cannot be undone)
  restock_report                  a job that asks the REST API about several products
  best_sellers, customer_spend    the shop's own SQL (internal/shop/queries), as
                                  ferry serve -queries serves it (read-only)
Prompts: order_summary (customer completes), restock_plan (category completes).
Resources: shop://policies, shop://orders/{id}, shop://entities,
shop://relationships, shop://schemas (every tool's JSON Schemas).

REST routes (RFC 9457 problems on error):
  GET  /api/products/{sku}          GET  /api/orders?customer_id=&status=&limit=
  POST /api/orders                  GET  /api/orders/{id}
  GET  /api/orders/{id}/history     POST /api/orders/{id}/cancel
  POST /api/orders/{id}/ship

Flags:
`

// demoLimits says the per-caller limits of the demo's server, which
// leaves them at the defaults (internal/shop's newMCP).
var demoLimits = describeLimits(ferry.DefaultMaxCallsPerCaller, ferry.DefaultCallRate, ferry.DefaultCallBurst)

// minKeyLength is the shortest API key --api-key accepts.
const minKeyLength = 16

// demo runs the demo shop until ctx is done.
func demo(ctx context.Context, args []string, e *env) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	addr := fs.String("http", "127.0.0.1:8080", "serve HTTP at `ADDR`: MCP at /mcp, REST at /api; port 0 picks a free one")
	stdio := fs.Bool("stdio", false, "serve MCP on stdin and stdout instead of HTTP")
	dbPath := fs.String("db", "", "the SQLite database `PATH`, created and seeded if absent (default: the user cache dir's ferry/demo.db)")
	key := fs.String("api-key", "", "the API `KEY` of /mcp and /api, at least 16 characters (default $FERRY_DEMO_API_KEY, else generated; prefer the variable: other users can read a command line)")
	if err := parseFlags(fs, args, demoHelp, e.stdout, e.stderr); err != nil {
		return err
	}
	httpSet := false
	fs.Visit(func(f *flag.Flag) { httpSet = httpSet || f.Name == "http" })
	switch {
	case fs.NArg() > 0:
		return usageError(fs, e, fmt.Sprintf("demo takes no arguments, got %q", fs.Args()))
	case *stdio && httpSet:
		return usageError(fs, e, "--http and --stdio exclude each other")
	}
	path := *dbPath
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("demo: no user cache directory (%w); pass --db PATH", err)
		}
		path = filepath.Join(dir, "ferry", "demo.db")
	}
	// The key is checked before the database is touched.
	k, source := *key, keyFromFlag
	if k == "" {
		k, source = e.getenv("FERRY_DEMO_API_KEY"), keyFromEnv
	}
	if k == "" && !*stdio {
		source = keyGenerated
	}
	if source == keyGenerated {
		k = "demo-" + rand.Text()
	} else if !*stdio {
		if err := checkDemoKey(k, source); err != nil {
			return err
		}
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, nil))
	var ln net.Listener
	if !*stdio {
		// The address first: a busy port stops the demo before it creates
		// and seeds a database.
		l, err := listenDemo(*addr)
		if err != nil {
			return err
		}
		defer l.Close()
		ln = l
	}
	db, err := shop.Open(ctx, path, e.stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	if *stdio {
		return demoStdio(ctx, e, logger, db, path)
	}
	return demoHTTP(ctx, e, logger, db, path, ln, k, source)
}

// listenDemo listens on addr, or says how to pick another address.
func listenDemo(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		hint := "--http ADDR picks another address"
		if errors.Is(err, syscall.EADDRINUSE) {
			hint = "is another server using the port? --http ADDR picks another (--http 127.0.0.1:0 a free one)"
		}
		return nil, fmt.Errorf("demo: %w; %s", err, hint)
	}
	return ln, nil
}

// checkDemoKey refuses an API key the demo would not accept, before anything
// is created: one shorter than [minKeyLength] or longer than a header
// holds, or one with a character that is not printable ASCII.
func checkDemoKey(k, source string) error {
	hint := "; leave it out to have one generated"
	if source == keyFromEnv {
		hint = " (it came from $FERRY_DEMO_API_KEY); fix the variable, or unset it to have one generated"
	}
	switch {
	case len(k) < minKeyLength:
		return fmt.Errorf("demo: the API key must be at least %d characters%s", minKeyLength, hint)
	case len(k) > auth.MaxTokenBytes:
		return fmt.Errorf("demo: the API key must be at most %d characters%s", auth.MaxTokenBytes, hint)
	case strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f }):
		return fmt.Errorf("demo: the API key must be printable ASCII, without spaces%s", hint)
	}
	return nil
}

// usageError prints problem and the usage on stderr.
func usageError(fs *flag.FlagSet, e *env, problem string) error {
	fmt.Fprintln(e.stderr, "ferry:", problem)
	printUsage(fs, demoHelp, e.stderr)
	return errUsage
}

// Where the demo's API key came from: what the start lines show of it.
const (
	keyFromFlag  = "from --api-key"
	keyFromEnv   = "from $FERRY_DEMO_API_KEY"
	keyGenerated = "generated for this run; set FERRY_DEMO_API_KEY to keep one"
)

// demoHTTP serves the shop on ln until ctx is done, then stops it
// gracefully.
func demoHTTP(ctx context.Context, e *env, logger *slog.Logger, db *sql.DB, path string, ln net.Listener, key, source string) error {
	tcp, _ := ln.Addr().(*net.TCPAddr)
	loopback := tcp != nil && tcp.IP.IsLoopback()
	opts := &shop.Options{Keys: map[string]*ferry.Principal{key: {Subject: "demo"}}, Logger: logger}
	if !loopback {
		// Any Host may reach a non-loopback address; the key guards it.
		opts.AllowedHosts = []string{"*"}
	}
	svc, err := shop.New(ctx, db, opts)
	if err != nil {
		return err
	}
	inv, err := svc.Inventory(ctx)
	if err != nil {
		return err
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), svc.Handler())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	printHTTPStart(e.stderr, path, ln.Addr(), loopback, inv, guardrails(svc.MCP.Catalog()), key, source)
	select {
	case err := <-errc:
		return fmt.Errorf("demo: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(e.stderr, "ferry demo: stopping (running calls get 5s to finish)")
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := svc.Shutdown(stopCtx, hs); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// printHTTPStart says where the demo listens and how to connect to it,
// in one write, so that no log record lands in the middle.
func printHTTPStart(out io.Writer, path string, addr net.Addr, loopback bool, inv shop.Inventory, rails, key, source string) {
	var w strings.Builder
	defer func() { _, _ = io.WriteString(out, w.String()) }()
	host := addr.String()
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port)) // how this machine reaches it
	}
	base := "http://" + host
	fmt.Fprintf(&w, "ferry demo: database %s\n", path)
	fmt.Fprintf(&w, "ferry demo: listening on %s (MCP at %s/mcp, REST at %s/api)\n", base, base, base)
	fmt.Fprintf(&w, "ferry demo: workbench at %s/ui/ (a page to try the tools and watch the calls; it asks for the API key)\n", base)
	fmt.Fprintf(&w, "ferry demo: %d tools, %d prompts, %d resources and %d resource templates\n",
		inv.Tools, inv.Prompts, inv.Resources, inv.Templates)
	// A key from the environment is a secret kept out of the command
	// line: it is not printed, where logs would keep it; the commands
	// below name the variable instead, which the user's shell expands.
	shown := key
	if source == keyFromEnv {
		shown = "$FERRY_DEMO_API_KEY"
	}
	fmt.Fprintf(&w, "ferry demo: API key: %s (%s)\n", shown, source)
	fmt.Fprintf(&w, "ferry demo: limits per caller (here, the API key): %s; a call over them is refused as \"unavailable\", so a load test must back off and retry\n", demoLimits)
	fmt.Fprintf(&w, "ferry demo: guardrails: %s\n", rails)
	fmt.Fprintf(&w, "ferry demo: health: %s/healthz (alive), %s/readyz (ready: not draining and the database answering), no key needed\n", base, base)
	if len(inv.Groups) > 0 {
		urls := make([]string, len(inv.Groups))
		for i, g := range inv.Groups {
			urls[i] = fmt.Sprintf("%s/mcp/%s (%d %s)", base, g.Name, g.Tools, plural(g.Tools, "tool", "tools"))
		}
		fmt.Fprintf(&w, "ferry demo: each group of tools at its own endpoint: %s\n", strings.Join(urls, ", "))
	}
	if !loopback {
		fmt.Fprintf(&w, "ferry demo: listening on %s, not only loopback: anyone who can reach it and has the key can place orders; there is no TLS\n", addr)
	}
	auth := "Authorization: Bearer " + shown
	// ferry install writes a variable as the client's own reference, so
	// a key from the environment stays out of the client's file; a key
	// made for this run is written as it is (and changes at the next).
	installAuth := "Authorization: Bearer " + key
	if source == keyFromEnv {
		installAuth = "Authorization: Bearer ${FERRY_DEMO_API_KEY}"
	}
	fmt.Fprintf(&w, `
Connect Claude Code:
  claude mcp add --transport http shop %[1]s/mcp --header "%[2]s"
Or write it into Claude Code's, Claude Desktop's, Cursor's or VS Code's configuration:
  ferry install claude-code shop %[1]s/mcp -header '%[3]s'
Try the tools in a browser (the workbench asks for the API key):
  %[1]s/ui/
Open the MCP Inspector:
  npx @modelcontextprotocol/inspector --server-url %[1]s/mcp --transport http --header "%[2]s"
Call the REST API:
  curl -s -H "%[2]s" %[1]s/api/orders/1

Press Ctrl-C to stop.
`, base, auth, installAuth)
}

// demoStdio serves the shop's MCP server on the env's stdin and stdout.
// The order tools reach the REST API in process with a key of their own,
// made for this run and never shown.
func demoStdio(ctx context.Context, e *env, logger *slog.Logger, db *sql.DB, path string) error {
	key := "stdio-" + rand.Text()
	p := &ferry.Principal{Subject: "stdio"}
	svc, err := shop.New(ctx, db, &shop.Options{Keys: map[string]*ferry.Principal{key: p}, RouteKey: key, Logger: logger})
	if err != nil {
		return err
	}
	inv, err := svc.Inventory(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "ferry demo: database %s\nferry demo: serving MCP on stdio: %d tools, %d prompts, %d resources and %d resource templates\n",
		path, inv.Tools, inv.Prompts, inv.Resources, inv.Templates)
	fmt.Fprintf(e.stderr, "ferry demo: limits: %s\nferry demo: guardrails: %s\n", demoLimits, guardrails(svc.MCP.Catalog()))
	err = svc.MCP.Run(ferry.WithPrincipal(ctx, p), &ferry.IOTransport{Reader: e.stdin, Writer: e.stdout})
	if ctx.Err() != nil {
		return nil // stopped by a signal
	}
	return err
}

// guardrails says the bounds every tool call of the demo runs under: its
// deadline and its SQL's, and the result budget, with the tools whose
// own differ from the rest's.
func guardrails(c ferry.Catalog) string {
	deadlines, budgets := map[string][]string{}, map[string][]string{}
	for _, t := range c.Tools() {
		d := "none"
		if t.Timeout > 0 {
			d = shortDuration(t.Timeout)
		}
		b := "no bound"
		if t.MaxResultBytes > 0 {
			b = strconv.Itoa(t.MaxResultBytes) + " bytes"
		}
		deadlines[d] = append(deadlines[d], t.Name)
		budgets[b] = append(budgets[b], t.Name)
	}
	return "each tool call ends after " + mostAndRest(deadlines) + " (entity SQL after " + shortDuration(entity.DefaultTimeout) +
		"); a result holds at most " + mostAndRest(budgets) + ", a larger one is cut (a list at a whole row, with hasMore)"
}

// mostAndRest says the value most tools share, then the others with
// their tools: "60s (restock_report 2m0s)".
func mostAndRest(byValue map[string][]string) string {
	values := slices.Sorted(maps.Keys(byValue))
	most := ""
	for _, v := range values {
		if len(byValue[v]) > len(byValue[most]) {
			most = v
		}
	}
	var rest []string
	for _, v := range values {
		if v != most {
			rest = append(rest, strings.Join(byValue[v], ", ")+" "+v)
		}
	}
	if len(rest) == 0 {
		return most
	}
	return most + " (" + strings.Join(rest, "; ") + ")"
}

// shortDuration is d without the zero units Go writes: "1m" for 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
