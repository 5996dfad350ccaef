package shop

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

const testKey = "k-shop-test-0123456789"

// seeded is a database seeded once for the tests, which openTest copies.
var seeded struct {
	once sync.Once
	data []byte
	err  error
}

// openTest opens a fresh shop database in t's temporary directory: a copy
// of one seeded by Open once per test binary, so each test has its own
// file without paying for a seed.
func openTest(t *testing.T) (*sql.DB, string) {
	t.Helper()
	seeded.once.Do(func() {
		dir, err := os.MkdirTemp("", "shop-seed")
		if err != nil {
			seeded.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "shop.db")
		db, err := Open(context.Background(), path, io.Discard)
		if err != nil {
			seeded.err = err
			return
		}
		_ = db.Close() // a clean close folds the WAL into the file
		seeded.data, seeded.err = os.ReadFile(path)
	})
	if seeded.err != nil {
		t.Fatal(seeded.err)
	}
	path := filepath.Join(t.TempDir(), "shop.db")
	if err := os.WriteFile(path, seeded.data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(t.Context(), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db, path
}

// openSeeded seeds a new database with Open itself.
func openSeeded(t *testing.T) *sql.DB {
	t.Helper()
	db, err := Open(t.Context(), filepath.Join(t.TempDir(), "shop.db"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// dump returns every row of every table, in key order, as text.
func dump(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range []string{"products", "customers", "orders", "order_lines", "order_events"} {
		rows, err := db.QueryContext(t.Context(), "SELECT * FROM "+table+" ORDER BY rowid")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			out[table] = append(out[table], fmt.Sprint(vals...))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// newTestService returns the shop over a fresh database, served by an
// httptest server, with its clock fixed.
func newTestService(t *testing.T) (*Service, *sql.DB, *httptest.Server) {
	t.Helper()
	db, _ := openTest(t)
	clock := func() time.Time { return time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC) }
	svc, err := New(t.Context(), db, &Options{Keys: map[string]*ferry.Principal{testKey: {Subject: "tester"}}, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(svc.Handler())
	t.Cleanup(hs.Close)
	return svc, db, hs
}

// rest calls the REST API with the test key and decodes a JSON answer
// into out, returning the status.
func rest(t *testing.T, hs *httptest.Server, method, path, body string, out any) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, hs.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

// rpcResult is the part of an MCP result the tests read.
type rpcResult struct {
	Content []struct {
		Type, Text string
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	Contents          []struct {
		URI, Text string
	} `json:"contents"`
	Messages   []json.RawMessage `json:"messages"`
	Completion struct {
		Values []string `json:"values"`
	} `json:"completion"`
}

// mcp sends one request to the shop's /mcp with key, through
// ferrytest's client in the modern era, and returns its result, failing
// on a protocol error. The client names the request in its headers.
func mcp(t *testing.T, hs *httptest.Server, key, method string, params map[string]any) rpcResult {
	t.Helper()
	c := ferrytest.DialHTTP(t, hs.URL+"/mcp", &ferrytest.Options{Header: http.Header{"Authorization": {"Bearer " + key}}})
	var r rpcResult
	if err := c.Raw().Call(t.Context(), method, params, &r); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return r
}

// mcpRaw sends one modern-era request as it is on the wire, for the
// answers a client does not see (a status, an error's body).
func mcpRaw(t *testing.T, hs *httptest.Server, key, method, name string, params map[string]any) (int, []byte) {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+"/mcp", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func call(t *testing.T, hs *httptest.Server, tool string, args map[string]any) rpcResult {
	t.Helper()
	return mcp(t, hs, testKey, "tools/call", map[string]any{"name": tool, "arguments": args})
}
