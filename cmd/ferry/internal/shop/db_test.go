package shop

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
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

// Two seeds give the same rows, in the numbers Counts says.
func TestSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	a := openSeeded(t)
	b := openSeeded(t)
	da, db := dump(t, a), dump(t, b)
	if diff := cmp.Diff(da, db); diff != "" {
		t.Fatalf("two seeds differ (-first +second):\n%s", diff)
	}
	n := counts()
	for table, want := range map[string]int{"products": n.Products, "customers": n.Customers, "orders": n.Orders} {
		if got := len(da[table]); got != want {
			t.Errorf("%s: %d rows, want %d", table, got, want)
		}
	}
	if lines := len(da["order_lines"]); lines < n.Orders || lines > 4*n.Orders {
		t.Errorf("%d order lines for %d orders", lines, n.Orders)
	}
	// Every order's total is the sum of its lines.
	if bad := count(t, a, `SELECT COUNT(*) FROM orders o WHERE total_cents !=
		(SELECT SUM(qty * unit_price_cents) FROM order_lines WHERE order_id = o.id)`); bad != 0 {
		t.Errorf("%d orders whose total is not the sum of their lines", bad)
	}
}

// A second start reuses the file: nothing is seeded again, and a change
// made before is still there.
func TestOpenReusesTheFile(t *testing.T) {
	t.Parallel()
	db, path := openTest(t)
	if _, err := db.ExecContext(t.Context(), "UPDATE products SET stock = 4242 WHERE sku = 'TEA-001'"); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	var progress bytes.Buffer
	again, err := Open(t.Context(), path, &progress)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if progress.Len() != 0 {
		t.Errorf("second open wrote %q; it should not seed", progress.String())
	}
	if n := count(t, again, "SELECT stock FROM products WHERE sku = 'TEA-001'"); n != 4242 {
		t.Errorf("stock after reopening = %d, want the 4242 written before", n)
	}
}

// The first start says that it seeds, and leaves no temporary file.
func TestOpenSeedsWithProgress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "shop.db")
	var progress bytes.Buffer
	db, err := Open(t.Context(), path, &progress)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if !strings.Contains(progress.String(), "creating the shop database "+path) || !strings.Contains(progress.String(), "seeded in") {
		t.Errorf("progress = %q", progress.String())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".seeding-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// A file that is not a shop database of this version is refused with a
// clear error and left byte for byte as it was.
func TestOpenRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	otherSQLite := func(t *testing.T, path string, pragma string) {
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(t.Context(), "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'keep me');"+pragma); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, want string
		make       func(t *testing.T, path string)
	}{
		{"text file", "cannot be read as SQLite", func(t *testing.T, path string) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("not a database\n"), 400), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty file", "is empty", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"another program's database", "another program's SQLite database", func(t *testing.T, path string) {
			otherSQLite(t, path, "")
		}},
		{"an older schema", "has schema version 7 and this demo needs 1", func(t *testing.T, path string) {
			otherSQLite(t, path, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = 7;", applicationID))
		}},
		{"a directory", "not a regular file", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "shop.db")
			tt.make(t, path)
			before := snapshot(t, path)
			db, err := Open(t.Context(), path, io.Discard)
			if err == nil {
				_ = db.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, ErrNotShopDatabase) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open: %v; want ErrNotShopDatabase naming the file and saying %q", err, tt.want)
			}
			if after := snapshot(t, path); after != before {
				t.Error("the file was changed")
			}
		})
	}
}

// snapshot returns a file's bytes, or "dir" for a directory.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "dir"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
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

// A path holding what an SQLite URI gives a meaning to (%, ?, #, a
// leading //) is the file that is created and reopened: nothing is seeded
// under another name, and nothing but the database and its WAL files is
// left in the directory.
func TestOpenPathsWithURICharacters(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x%41.db", "a?b.db", "c#d.db", "%2e%2e.db"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			if name == "x%41.db" {
				path = "/" + path // //tmp/... names an authority in a URI
			}
			for range 2 {
				db, err := Open(t.Context(), path, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				if n := count(t, db, "SELECT COUNT(*) FROM products"); n != 60 {
					t.Errorf("%d products, want 60", n)
				}
				_ = db.Close()
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if base := strings.TrimSuffix(strings.TrimSuffix(e.Name(), "-wal"), "-shm"); base != name {
					t.Errorf("%s left in the directory", e.Name())
				}
			}
		})
	}
}

// A symbolic link to nothing is refused with a sentence saying so, before
// anything is seeded.
func TestOpenRefusesADanglingLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.db")
	if err := os.Symlink(filepath.Join(dir, "gone", "shop.db"), path); err != nil {
		t.Fatal(err)
	}
	var progress bytes.Buffer
	db, err := Open(t.Context(), path, &progress)
	if err == nil {
		_ = db.Close()
		t.Fatal("Open succeeded")
	}
	if want := path + " is a symbolic link to " + filepath.Join(dir, "gone", "shop.db") + ", which does not exist"; !strings.Contains(err.Error(), want) {
		t.Errorf("Open: %v; want it to say %q", err, want)
	}
	if progress.Len() != 0 {
		t.Errorf("it seeded first: %q", progress.String())
	}
}

// A start after one killed while seeding removes what that one left, once
// it is old enough not to be another start seeding now: the next first
// start, and a warm start too, since a later start may have seeded.
func TestOpenRemovesStaleSeedingFiles(t *testing.T) {
	t.Parallel()
	t.Run("first start", func(t *testing.T) {
		t.Parallel()
		testRemovesStaleSeeds(t, filepath.Join(t.TempDir(), "shop.db"))
	})
	t.Run("warm start", func(t *testing.T) {
		t.Parallel()
		db, path := openTest(t)
		_ = db.Close()
		testRemovesStaleSeeds(t, path)
	})
}

func testRemovesStaleSeeds(t *testing.T, path string) {
	stale := []string{path + ".seeding-1", path + ".seeding-1-journal"}
	fresh := path + ".seeding-2"
	old := time.Now().Add(-time.Hour)
	for _, f := range append(stale, fresh) {
		if err := os.WriteFile(f, []byte("half a seed"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range stale {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	db, err := Open(t.Context(), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	for _, f := range stale {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", f, err)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh seeding file, maybe another start's, was removed: %v", err)
	}
}

// A shop database this process may not write is refused with a sentence
// saying so, not taken for a file that is not SQLite, and not served until
// the first order fails. As root, permissions do not stop a write, so the
// file is made immutable instead.
func TestOpenRefusesAReadOnlyFile(t *testing.T) {
	t.Parallel()
	_, path := openTest(t)
	if os.Geteuid() == 0 {
		if out, err := exec.CommandContext(t.Context(), "chattr", "+i", path).CombinedOutput(); err != nil {
			t.Skipf("root cannot be stopped from writing without chattr +i: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("chattr", "-i", path).Run() })
	} else if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	db, err := Open(t.Context(), path, io.Discard)
	if err == nil {
		_ = db.Close()
		t.Fatal("Open succeeded")
	}
	if want := path + " cannot be written"; !strings.Contains(err.Error(), want) || errors.Is(err, ErrNotShopDatabase) {
		t.Errorf("Open: %v; want it to say %q, and not ErrNotShopDatabase", err, want)
	}
}
