package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/ferrytest"
)

// served is a ferry serve run in process.
type served struct {
	url    string // the MCP endpoint
	stderr *ferrytest.Buffer
}

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// startServe runs "ferry serve args..." in process with the environment
// pairs given and waits until it listens; it is stopped when the test
// ends. A run that exits instead fails the test with its stderr.
func startServe(t *testing.T, args []string, envPairs ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stderr: new(ferrytest.Buffer)}
	done := make(chan int, 1)
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: s.stderr, getenv: envFunc(envPairs)}
	go func() { done <- run(ctx, append([]string{"serve"}, args...), e) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("ferry serve exited %d when stopped: %s", code, s.stderr.String())
			}
		case <-time.After(15 * time.Second):
			t.Errorf("ferry serve did not stop within 15s")
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
			return s
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("ferry serve %q exited %d before listening: %s", args, code, s.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("ferry serve %q did not listen within 60s: %s", args, s.stderr.String())
	return nil
}

// failServe runs a "ferry serve" that must not start and returns its
// exit code and stderr.
func failServe(t *testing.T, args []string, envPairs ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr ferrytest.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, getenv: envFunc(envPairs)}
	code := run(ctx, append([]string{"serve"}, args...), e)
	if ctx.Err() != nil {
		t.Fatalf("ferry serve %q started instead of failing: %s", args, stderr.String())
	}
	return code, stderr.String()
}

func envFunc(pairs []string) func(string) string {
	vars := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		vars[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return vars[k] }
}

// rpcReply is a JSON-RPC answer.
type rpcReply struct {
	Status int
	Header http.Header
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// post sends one modern-era (2026-07-28) request, with the headers given
// as name, value pairs.
func (s *served) post(t *testing.T, method string, params map[string]any, headers ...string) rpcReply {
	t.Helper()
	return mcpPost(t, s.url, method, params, headers...)
}

// mcpPost sends one modern-era (2026-07-28) request to the MCP endpoint
// url, with the headers given as name, value pairs; a Host pair sets the
// request's Host. Tests of what a client sees use ferrytest's client;
// this is for the HTTP answers themselves (a status, a header).
func mcpPost(t *testing.T, url, method string, params map[string]any, headers ...string) rpcReply {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	} else if uri, ok := params["uri"].(string); ok {
		req.Header.Set("Mcp-Name", uri)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s %s: %v", url, method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := rpcReply{Status: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatalf("%s: not JSON-RPC: %v: %s", method, err, raw)
		}
	}
	return r
}

// toolList is a tools/list result.
type toolList struct {
	Tools []listedTool `json:"tools"`
}

// listedTool is a tool of a tools/list result.
type listedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// client connects to the server with ferrytest's client, sending the
// headers given as name, value pairs with every request.
func (s *served) client(t *testing.T, headers ...string) *ferrytest.Client {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	return ferrytest.DialHTTP(t, s.url, &ferrytest.Options{Header: h})
}

// tools lists the server's tools, sorted by name.
func (s *served) tools(t *testing.T, headers ...string) toolList {
	t.Helper()
	var l toolList
	for _, tool := range s.client(t, headers...).ListTools(t.Context()) {
		l.Tools = append(l.Tools, listedTool{})
		if err := json.Unmarshal(tool.Raw, &l.Tools[len(l.Tools)-1]); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(l.Tools, func(a, b listedTool) int { return strings.Compare(a.Name, b.Name) })
	return l
}

func (l toolList) names() []string {
	var out []string
	for _, tool := range l.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// toolResult is a tools/call result.
type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	Structured map[string]any `json:"structuredContent"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// call calls a tool and decodes its result; a protocol error fails the
// test.
func (s *served) call(t *testing.T, name string, args map[string]any, headers ...string) toolResult {
	t.Helper()
	var res toolResult
	if err := json.Unmarshal(s.client(t, headers...).CallTool(t.Context(), name, args).Raw, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// records returns the data of a list result, failing on an error result.
func records(t *testing.T, r toolResult) []map[string]any {
	t.Helper()
	if r.IsError {
		t.Fatalf("list failed: %s", r.text())
	}
	raw, _ := json.Marshal(r.Structured["data"])
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("list data %s: %v", raw, err)
	}
	return out
}

// The servers the tests use, as entity's tests do; overridable for
// machines that keep them elsewhere. When $CI is set a server that does
// not answer fails the test instead of skipping it.
var (
	testPG    = envOr("FERRY_TEST_PG", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	testMySQL = envOr("FERRY_TEST_MYSQL_URL", "mysql://root@127.0.0.1:3306/")
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// freshName returns a name no other test run uses.
func freshName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// testDB is a database made for one test: the URL ferry serve is given,
// and a handle for setting it up and checking it.
type testDB struct {
	engine string
	url    string
	db     *sql.DB
}

// engines lists the three engines' test databases.
var engines = []struct {
	name string
	open func(t testing.TB) *testDB
}{
	{"sqlite", sqliteTestDB},
	{"postgres", postgresTestDB},
	{"mysql", mysqlTestDB},
}

func sqliteTestDB(t testing.TB) *testDB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &testDB{engine: "sqlite", url: path, db: db}
}

// postgresTestDB makes a fresh schema, named in the URL's search_path,
// and drops it when the test ends.
func postgresTestDB(t testing.TB) *testDB {
	t.Helper()
	admin := pingOrSkip(t, "pgx", testPG, "PostgreSQL at 127.0.0.1:5432")
	schema := freshName("ferry_serve_")
	mustExec(t, admin, "CREATE SCHEMA "+schema)
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		_ = admin.Close()
	})
	u, err := url.Parse(testPG)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return &testDB{engine: "postgres", url: u.String(), db: db}
}

// mysqlTestDB makes a fresh database on the MariaDB server and drops it
// when the test ends.
func mysqlTestDB(t testing.TB) *testDB {
	t.Helper()
	u, err := url.Parse(testMySQL)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	adminDSN := u.User.Username() + ":" + pw + "@tcp(" + u.Host + ")/"
	admin := pingOrSkip(t, "mysql", adminDSN, "MariaDB at 127.0.0.1:3306")
	name := freshName("ferry_serve_")
	mustExec(t, admin, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4")
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		_ = admin.Close()
	})
	db, err := sql.Open("mysql", adminDSN+name+"?parseTime=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	u.Path = "/" + name
	return &testDB{engine: "mysql", url: u.String(), db: db}
}

func pingOrSkip(t testing.TB, driver, dsn, what string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		if os.Getenv("CI") != "" {
			t.Fatalf("%s does not answer (CI is set): %v", what, err)
		}
		t.Skipf("%s does not answer, skipping: %v", what, err)
	}
	return db
}

func mustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// shop creates the tables the serve tests use: products (with a natural
// key and a cost the config hides), customers, and a table with no
// primary key.
func (d *testDB) shop(t testing.TB) {
	t.Helper()
	id := map[string]string{
		"sqlite":   "INTEGER PRIMARY KEY",
		"postgres": "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
		"mysql":    "BIGINT AUTO_INCREMENT PRIMARY KEY",
	}[d.engine]
	text := "TEXT"
	if d.engine == "mysql" {
		text = "VARCHAR(200)"
	}
	mustExec(t, d.db,
		"CREATE TABLE products (id "+id+", sku "+text+" NOT NULL UNIQUE, name "+text+" NOT NULL, description "+text+", price DECIMAL(10,2) NOT NULL, cost_price DECIMAL(10,2))",
		"CREATE TABLE customers (id "+id+", email "+text+" NOT NULL UNIQUE, name "+text+")",
		"CREATE TABLE visits (day "+text+", hits INTEGER)",
		"INSERT INTO products (sku, name, description, price, cost_price) VALUES ('MUG-1', 'Blue mug', 'A stoneware mug, 30 cl', 9.50, 2.10), ('TEE-2', 'Red shirt', '100% cotton_blend', 20.00, 8.00), ('MUG-3', 'Green mug', NULL, 11.00, 2.50)",
		"INSERT INTO customers (email, name) VALUES ('ada@example.com', 'Ada')",
	)
}

// readTools are the tools of the shop read-only, sorted.
var readTools = []string{"get_customer", "get_product", "list_customers", "list_products", "list_visits"}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
