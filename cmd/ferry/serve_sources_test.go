package main

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// viaProxy is the URL u with its host replaced by a proxy's, and the
// proxy.
func viaProxy(t *testing.T, raw string) (string, *tcpProxy) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.addr
	return u.String(), p
}

// sourcesFixture makes three databases, SQLite (shop), PostgreSQL behind
// a proxy (billing) and MariaDB (stock), whose tables clash by name, and
// the config file serving them.
func sourcesFixture(t *testing.T) (conf, billingURL string, billing *tcpProxy) {
	t.Helper()
	shop := sqliteTestDB(t)
	shop.shop(t)
	pg := postgresTestDB(t)
	mustExec(t, pg.db,
		"CREATE TABLE customers (id BIGINT PRIMARY KEY, email TEXT NOT NULL)",
		"CREATE TABLE invoices (id BIGINT PRIMARY KEY, customer_id BIGINT REFERENCES customers(id), total_cents BIGINT NOT NULL)",
		"INSERT INTO customers VALUES (1, 'ada@example.com'), (2, 'bob@example.com')",
		"INSERT INTO invoices VALUES (10, 1, 1200), (11, 2, 300), (12, 1, 50)")
	stock := mysqlTestDB(t)
	mustExec(t, stock.db,
		"CREATE TABLE products (id BIGINT PRIMARY KEY, sku VARCHAR(20) NOT NULL, on_hand INT NOT NULL)",
		"CREATE TABLE warehouses (id BIGINT PRIMARY KEY, city VARCHAR(40) NOT NULL)",
		"INSERT INTO products VALUES (1, 'MUG-1', 40)",
		"INSERT INTO warehouses VALUES (1, 'Utrecht')")
	billingURL, billing = viaProxy(t, pg.url)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "shopq"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "shopq", "q.sql"), "-- name: product_count :one\n-- How many products the shop sells.\nSELECT COUNT(*) AS n FROM products\n")
	conf = filepath.Join(dir, "serve.yaml")
	writeFile(t, conf, `sources:
  shop:
    db: `+shop.url+`
    queries_dir: shopq
    tables:
      products: {hidden: [cost_price]}
  billing:
    db_env: BILLING_DB
    statement_timeout: 3s
    max_conns: 3
  stock:
    db: `+stock.url+`
    prefix: never
    exclude_tables: [warehouses]
`)
	return conf, billingURL, billing
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// One ferry serve serves SQLite, PostgreSQL and MariaDB: a table two
// sources share gets each one's prefix on all its tools, except where
// its source says never; each source answers from its own database,
// has its own statement timeout and pool; and when PostgreSQL goes down
// after start-up, only its tools answer unavailable, the others go on.
func TestServeSources(t *testing.T) {
	conf, billingURL, billing := sourcesFixture(t)
	s := startServe(t, []string{"-config", conf, "-http", "127.0.0.1:0"}, "BILLING_DB", billingURL)
	want := []string{
		"billing_get_customer", "billing_list_customers", "get_invoice", "get_product", "list_invoices", "list_products",
		"list_visits", "product_count", "shop_get_customer", "shop_get_product", "shop_list_customers", "shop_list_products",
	}
	if got := s.tools(t).names(); !slices.Equal(got, want) {
		t.Errorf("tools %v;\nwant %v", got, want)
	}
	stderr := s.stderr.String()
	for _, line := range []string{
		"source shop: serving 3 tables of ", "source shop: serving 1 query of ",
		"source billing: serving 2 tables of postgres://", "source stock: serving 1 table of mysql://",
		"schemas at shop://entities and shop://relationships, billing://entities and billing://relationships, stock://entities",
		"source billing: database connections: at most 3 at once (max_conns)",
		"its SQL per source (statement_timeout): shop 10s, billing 3s, stock 10s",
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("start-up lines lack %q:\n%s", line, stderr)
		}
	}
	check := func(tool string, args map[string]any, n int) {
		t.Helper()
		if got := records(t, s.call(t, tool, args)); len(got) != n {
			t.Errorf("%s: %d records; want %d: %v", tool, len(got), n, got)
		}
	}
	check("shop_list_products", nil, 3)
	check("list_products", nil, 1)
	check("billing_list_customers", nil, 2)
	check("shop_list_customers", nil, 1)
	check("list_invoices", map[string]any{"filter": "customer_id == 1"}, 2)
	if r := s.call(t, "product_count", nil); r.IsError || r.Structured["data"].(map[string]any)["n"] != float64(3) {
		t.Errorf("product_count = %s", r.text())
	}
	if r := s.call(t, "shop_get_product", map[string]any{"sku": "MUG-1"}); r.IsError || r.Structured["cost_price"] != nil {
		t.Errorf("shop_get_product: %s; want the product without its hidden cost_price", r.text())
	}

	billing.stop()
	for _, tool := range []string{"billing_list_customers", "list_invoices"} {
		r := s.call(t, tool, nil)
		if !r.IsError || !strings.HasPrefix(r.text(), "unavailable: ") {
			t.Errorf("%s with PostgreSQL down: %s; want unavailable", tool, r.text())
		}
	}
	check("shop_list_products", nil, 3)
	check("list_products", nil, 1)
}

// With several sources, each source's tools, resources and template are
// in the group of its name, described; the readiness checks ping each
// source, and
// fails for the one that went down.
func TestServeSourcesGroupsAndChecks(t *testing.T) {
	conf, billingURL, billing := sourcesFixture(t)
	s := &server{cfg: &serveConfig{configFile: conf, given: map[string]bool{}},
		env: &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: envFunc([]string{"BILLING_DB", billingURL})},
		log: slog.New(slog.DiscardHandler)}
	srv, closeDBs, err := s.build(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer closeDBs()
	counts := map[string][4]int{}
	for _, g := range srv.Groups() {
		if g.Name != "shop" && g.Name != "billing" && g.Name != "stock" {
			continue // a table's own group (its plural name)
		}
		counts[g.Name] = [4]int{g.Tools, g.Resources, g.Templates}
		if !strings.Contains(g.Description, "(source "+g.Name+")") {
			t.Errorf("group %s: description %q", g.Name, g.Description)
		}
	}
	want := map[string][4]int{"shop": {6, 2, 1}, "billing": {4, 2, 1}, "stock": {2, 2, 1}}
	if !maps.Equal(counts, want) {
		t.Errorf("groups (tools, resources, templates) %v; want %v", counts, want)
	}
	for _, tl := range srv.Catalog().Tools() {
		n := 0
		for _, src := range []string{"shop", "billing", "stock"} {
			if slices.Contains(tl.Groups, src) {
				n++
			}
		}
		if n != 1 || strings.HasPrefix(tl.Name, "list_") && len(tl.Groups) != 2 && tl.Name != "product_count" {
			t.Errorf("tool %s: groups %v; want its source's (and its table's)", tl.Name, tl.Groups)
		}
	}
	ping := func() map[string]bool {
		up := map[string]bool{}
		for _, c := range s.checks {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			up[c.Name] = c.Check(ctx) == nil
			cancel()
		}
		return up
	}
	if got := ping(); !maps.Equal(got, map[string]bool{"database shop": true, "database billing": true, "database stock": true}) {
		t.Errorf("checks with every source up: %v", got)
	}
	billing.stop()
	if got := ping(); !maps.Equal(got, map[string]bool{"database shop": true, "database billing": false, "database stock": true}) {
		t.Errorf("checks with billing down: %v", got)
	}
}

// A config with sources: is refused, in one line naming what to change,
// when a source is down at start-up, when two sources keep a tool name
// (both prefix: never), with a flag of one database, when db_env's
// variable is unset, and when db: holds a password.
func TestServeSourcesRefused(t *testing.T) {
	shop := sqliteTestDB(t)
	shop.shop(t)
	other := sqliteTestDB(t)
	mustExec(t, other.db, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "postgres://ferry@" + closed.Addr().String() + "/billing?sslmode=disable"
	_ = closed.Close()
	for _, c := range []struct {
		name, config string
		args         []string
		code         int
		want         string
	}{
		{"down at start-up", "sources:\n  shop:\n    db: " + shop.url + "\n  billing:\n    db: " + downURL + "\n", nil, exitFailed,
			"ferry: source billing: cannot connect to " + downURL + ": "},
		{"never clash", "sources:\n  shop:\n    db: " + shop.url + "\n    prefix: never\n  crm:\n    db: " + other.url + "\n    prefix: never\n", nil, exitFailed,
			"ferry: tool get_customer: both table customers of source shop and table customers of source crm would have it; give one of them prefix: clash or always (or another tool_prefix)"},
		{"a flag of one database", "sources:\n  shop:\n    db: " + shop.url + "\n", []string{"-tables", "products"}, exitUsage,
			"ferry: -tables does not go with the sources: of CONF: give each source's only_tables there; see ferry serve -h"},
		{"unset variable", "sources:\n  shop:\n    db: " + shop.url + "\n  billing:\n    db_env: BILLING_DB\n", nil, exitUsage,
			"ferry: source billing: db_env: $BILLING_DB is empty or unset; see ferry serve -h"},
		{"password in the URL", "sources:\n  billing:\n    db: postgres://ferry:hunter2@127.0.0.1/billing\n", nil, exitFailed,
			"ferry: CONF:3:9: source billing: db: the URL holds a password; a config file holds none: name the variable holding it with password_env: (or the whole URL's with db_env:)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conf := filepath.Join(t.TempDir(), "serve.yaml")
			writeFile(t, conf, c.config)
			code, stderr := failServe(t, append([]string{"-config", conf, "-http", "127.0.0.1:0"}, c.args...))
			want := strings.ReplaceAll(c.want, "CONF", conf)
			if code != c.code || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "hunter2") {
				t.Errorf("exit %d, stderr %q;\nwant %d and one line starting %q", code, stderr, c.code, want)
			}
		})
	}
}
