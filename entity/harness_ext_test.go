package entity_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// client calls a server's tools over its real HTTP handler, as a
// 2026-07-28 client does, with the principal a test chooses: through
// ferrytest's client, or as raw JSON-RPC (rpc) for the tests of what is
// on the wire.
type client struct {
	t   testing.TB
	url string
	// tenant, if not empty, makes the caller a principal with that tenant
	// claim.
	tenant string
	conns  map[string]*ferrytest.Client // by tenant
}

// serve serves srv over HTTP; a request's X-Test-Tenant header becomes a
// principal with that tenant claim, as an authenticator in front would.
func serve(t testing.TB, srv *ferry.Server) *client {
	t.Helper()
	h := ferry.NewHTTPHandler(srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tn := r.Header.Get("X-Test-Tenant"); tn != "" {
			p := &ferry.Principal{Subject: "user-" + tn, Claims: map[string]any{"tenant": tn}}
			r = r.WithContext(ferry.WithPrincipal(r.Context(), p))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c := &client{t: t, url: ts.URL}
	c.conn() // on t's goroutine, for callAsync
	return c
}

// result is a tool call's result as a client reads it.
type result struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
}

func (r *result) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

// rpc sends one JSON-RPC request and returns its result member.
func (c *client) rpc(method, name, params string) (json.RawMessage, *struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}) {
	c.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if c.tenant != "" {
		req.Header.Set("X-Test-Tenant", c.tenant)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		c.t.Fatalf("%s: %d %s: %v", method, resp.StatusCode, b, err)
	}
	return env.Result, env.Error
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// conn returns ferrytest's client for the current tenant, connecting it
// on first use.
func (c *client) conn() *ferrytest.Client {
	c.t.Helper()
	if fc := c.conns[c.tenant]; fc != nil {
		return fc
	}
	h := http.Header{}
	if c.tenant != "" {
		h.Set("X-Test-Tenant", c.tenant)
	}
	fc := ferrytest.DialHTTP(c.t, c.url, &ferrytest.Options{Header: h})
	if c.conns == nil {
		c.conns = map[string]*ferrytest.Client{}
	}
	c.conns[c.tenant] = fc
	return fc
}

// call calls a tool and returns its result; a protocol error fails the
// test.
func (c *client) call(name, args string) *result {
	c.t.Helper()
	var r result
	// Call, not CallTool, so that the arguments go as the test wrote them.
	params := map[string]any{"name": name, "arguments": json.RawMessage(args)}
	if err := c.conn().Raw().Call(context.Background(), "tools/call", params, &r); err != nil {
		c.t.Fatalf("%s(%s): %v", name, args, err)
	}
	return &r
}

// ok calls a tool that must succeed and returns its structured content.
func (c *client) ok(name, args string) json.RawMessage {
	c.t.Helper()
	r := c.call(name, args)
	if r.IsError {
		c.t.Fatalf("%s(%s): %s", name, args, r.text())
	}
	if len(r.Structured) == 0 {
		c.t.Fatalf("%s(%s): no structured content", name, args)
	}
	return r.Structured
}

// refused calls a tool that must fail and returns its text.
func (c *client) refused(name, args string) string {
	c.t.Helper()
	r := c.call(name, args)
	if !r.IsError {
		c.t.Fatalf("%s(%s) = %s; want a refusal", name, args, r.text())
	}
	return r.text()
}

// tools lists the server's tools by name.
func (c *client) tools() map[string]json.RawMessage {
	c.t.Helper()
	m := map[string]json.RawMessage{}
	for _, tl := range c.conn().ListTools(context.Background()) {
		m[tl.Name] = tl.Raw
	}
	return m
}

// productDDL creates categories and products on each engine, with the
// constraints the tests break: unique sku, a foreign key to categories,
// not null name, a check on cost.
var productDDL = map[string][]string{
	"sqlite": {
		`CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
			cost NUMERIC NOT NULL DEFAULT 0 CHECK (cost >= 0), stock INTEGER, active BOOLEAN NOT NULL DEFAULT 1,
			category_id INTEGER REFERENCES categories(id), tenant TEXT NOT NULL DEFAULT '',
			created_at TIMESTAMP, created_by TEXT)`,
	},
	"postgres": {
		`CREATE TABLE categories (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE products (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, sku TEXT NOT NULL UNIQUE,
			name TEXT NOT NULL, cost NUMERIC(12,2) NOT NULL DEFAULT 0 CHECK (cost >= 0), stock INTEGER,
			active BOOLEAN NOT NULL DEFAULT true, category_id BIGINT REFERENCES categories(id),
			tenant TEXT NOT NULL DEFAULT '', created_at TIMESTAMPTZ, created_by TEXT)`,
	},
	"mysql": {
		`CREATE TABLE categories (id BIGINT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(100) NOT NULL UNIQUE) ENGINE=InnoDB`,
		`CREATE TABLE products (id BIGINT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(64) NOT NULL UNIQUE,
			name VARCHAR(200) NOT NULL, cost DECIMAL(12,2) NOT NULL DEFAULT 0 CHECK (cost >= 0), stock INT,
			active BOOLEAN NOT NULL DEFAULT 1, category_id BIGINT, tenant VARCHAR(64) NOT NULL DEFAULT '',
			created_at DATETIME(6), created_by VARCHAR(64),
			FOREIGN KEY (category_id) REFERENCES categories(id)) ENGINE=InnoDB`,
	},
}

// forEachEngine runs f on each engine with the product schema created.
func forEachEngine(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			for _, q := range productDDL[e.Name] {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			f(t, db)
		})
	}
}

// Category and Product are the Go types the tests register.
type Category struct {
	ID   int64  `json:"id" entity:"key"`
	Name string `json:"name" entity:"natural,filter,sort" minLength:"1" maxLength:"100"`
}

type Product struct {
	ID         int64      `json:"id" entity:"key"`
	SKU        string     `json:"sku" entity:"natural" doc:"The stock keeping unit." pattern:"^[A-Za-z]+-[0-9]+$" maxLength:"64"`
	Name       string     `json:"name" entity:"filter,sort,search" minLength:"1" maxLength:"200"`
	Cost       float64    `json:"cost" entity:"filter,sort,default"`
	Stock      *int64     `json:"stock" entity:"filter,sort"`
	Active     bool       `json:"active" entity:"filter,default"`
	CategoryID *int64     `json:"category_id" entity:"filter" ref:"category"`
	Tenant     string     `json:"tenant" entity:"default"`
	CreatedAt  *time.Time `json:"created_at" entity:"filter,sort"`
	CreatedBy  *string    `json:"created_by"`
}

// quiet is a server whose logs the tests do not need.
func quiet() *ferry.Server {
	return ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
}

// shop serves categories and products of db with the options given for
// products.
func shop(t testing.TB, db *sql.DB, setOpts *entity.SetOptions, opts *entity.Options) (*client, *entity.Set) {
	t.Helper()
	return shopOn(t, quiet(), db, setOpts, opts)
}

// shopOn is shop on a server the test made.
func shopOn(t testing.TB, srv *ferry.Server, db *sql.DB, setOpts *entity.SetOptions, opts *entity.Options) (*client, *entity.Set) {
	t.Helper()
	set, err := entity.NewSet(srv, db, setOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Category](set, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Product](set, opts); err != nil {
		t.Fatal(err)
	}
	set.AddResources("shop")
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return serve(t, srv), set
}

// count counts rows with a condition, straight from the database.
func count(t testing.TB, db *sql.DB, table, cond string, args ...any) int {
	t.Helper()
	var n int
	q := "SELECT COUNT(*) FROM " + table
	if cond != "" {
		q += " WHERE " + cond
	}
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
