package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A PostgreSQL table named like a pg_catalog relation serves its own rows:
// unqualified, "pg_settings" would resolve to pg_catalog.pg_settings
// (searched first whatever the search_path says) and serve the server's
// settings instead; pg_stat_activity would serve other sessions' queries.
func TestServePostgresTableNamedLikeCatalog(t *testing.T) {
	d := postgresTestDB(t)
	u, err := url.Parse(d.url)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	mustExec(t, d.db,
		"CREATE TABLE "+schema+".pg_settings (name TEXT PRIMARY KEY, setting TEXT)",
		"INSERT INTO "+schema+".pg_settings VALUES ('mine', '1')",
		"CREATE TABLE "+schema+".pg_stat_activity (id INTEGER PRIMARY KEY, query TEXT)",
	)
	conf := writeConfig(t, "tables:\n  pg_settings:\n    sort: [name]\n")
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
	rows := records(t, s.call(t, "list_pg_settings", nil))
	if len(rows) != 1 || rows[0]["name"] != "mine" {
		t.Errorf("list_pg_settings = %d rows (first %v); want the table's one row", len(rows), first(rows))
	}
	if rows := records(t, s.call(t, "list_pg_stat_activities", nil)); len(rows) != 0 {
		t.Errorf("list_pg_stat_activities = %v; want the table's no rows", first(rows))
	}
}

func first(rows []map[string]any) map[string]any {
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

// writeConfig writes a -config file for one test and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An -http address without a port is a usage mistake, said as such: it
// is not a non-loopback address.
func TestServeHTTPAddressNeedsAPort(t *testing.T) {
	for _, addr := range []string{"127.0.0.1", "localhost", "[::1]", "0.0.0.0"} {
		code, stderr := failServe(t, []string{"-db", "x.db", "-http", addr})
		if code != exitUsage || !strings.Contains(stderr, "HOST:PORT") || strings.Contains(stderr, "reachable from other machines") {
			t.Errorf("-http %s: exit %d, %s; want exit 2 asking for HOST:PORT", addr, code, stderr)
		}
	}
}

// A newcomer's "ferry serve shop.db" is answered with the command that
// works.
func TestServeDatabaseAsArgumentHints(t *testing.T) {
	code, stderr := failServe(t, []string{"shop.db"})
	if first, _, _ := strings.Cut(stderr, "\n"); code != exitUsage || !strings.Contains(first, "did you mean ferry serve -db shop.db?") {
		t.Errorf("ferry serve shop.db: exit %d, first line %q; want 2 and the -db hint", code, first)
	}
	// The error quotes the argument, never a password in it.
	_, stderr = failServe(t, []string{"postgres://app:s3cr3t@db/shop"})
	if strings.Contains(stderr, "s3cr3t") || !strings.Contains(stderr, "-db postgres://app:xxxxx@db/shop?") {
		t.Errorf("ferry serve URL: %s; want the hint with the password redacted", stderr)
	}
}

// Start-up ends with the commands that use the server, naming the header
// the authentication wants but never a key.
func TestServeSaysHowToConnect(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	waitFor(t, s, "ferry install")
	for _, want := range []string{"list the tools: ferry tools " + s.url + "\n", "connect Claude Code: claude mcp add --transport http db " + s.url + "\n",
		"ferry install claude-code db " + s.url + "\n"} {
		if !strings.Contains(s.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, s.stderr.String())
		}
	}
	k := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-api-key-env", "KEYS"}, "KEYS", "k-one-secret,k-two-secret")
	waitFor(t, k, "ferry install")
	out := k.stderr.String()
	if !strings.Contains(out, `ferry tools -header "X-API-Key: <a key of $KEYS>" `+k.url) || !strings.Contains(out, `--header "X-API-Key: <a key of $KEYS>"`) || strings.Contains(out, "secret") ||
		!strings.Contains(out, "ferry install claude-code db "+k.url+` -header 'X-API-Key: ${DB_MCP_KEY}'`) {
		t.Errorf("with API keys, stderr:\n%s", out)
	}
}

// waitFor waits until the served command's stderr holds want.
func waitFor(t *testing.T, s *served, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.stderr.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr never held %q:\n%s", want, s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The start-up line shows an odd table name quoted, so that a blank name
// shows and a control character in one cannot drive the terminal.
func TestServeListsOddTableNamesQuoted(t *testing.T) {
	d := sqliteTestDB(t)
	mustExec(t, d.db,
		`CREATE TABLE " " (id INTEGER PRIMARY KEY)`,
		"CREATE TABLE \"evil\x1b]0;owned\x07\" (id INTEGER PRIMARY KEY)",
		`CREATE TABLE "order items" (id INTEGER PRIMARY KEY)`,
		`CREATE TABLE 注文 (id INTEGER PRIMARY KEY)`,
		`CREATE TABLE products (id INTEGER PRIMARY KEY)`,
	)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	out := s.stderr.String()
	if want := `: " ", "evil\x1b]0;owned\a", "order items", products, 注文` + "\n"; !strings.Contains(out, want) {
		t.Errorf("stderr lacks %q:\n%q", want, out)
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("stderr holds an escape character: %q", out)
	}
}

// A column whose name looks like a credential is served unless the config
// hides it, so start-up says so, and says nothing once it is hidden.
func TestServeNotesColumnsThatLookSecret(t *testing.T) {
	d := sqliteTestDB(t)
	mustExec(t, d.db, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password_hash TEXT, API_Key TEXT)")
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	if want := "note: users.password_hash, users.API_Key look like secrets and are served to every client; hide them with -config"; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr.String())
	}
	conf := writeConfig(t, "tables:\n  users:\n    hidden: [password_hash, API_Key]\n")
	h := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", conf})
	if strings.Contains(h.stderr.String(), "note:") {
		t.Errorf("with the columns hidden, stderr still notes them:\n%s", h.stderr.String())
	}
}

// A table name that misses by case or by a plural's s is answered with the
// name the database has, in -tables and in the config file.
func TestServeSuggestsTheTableName(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	_, stderr := failServe(t, []string{"-db", d.url, "-tables", "product"})
	if !strings.Contains(stderr, `did you mean "products"?`) {
		t.Errorf("-tables product: %s; want the products hint", stderr)
	}
	conf := writeConfig(t, "tables:\n  Customer:\n    description: People.\n")
	_, stderr = failServe(t, []string{"-db", d.url, "-config", conf})
	if !strings.Contains(stderr, `did you mean "customers"?`) {
		t.Errorf("config table Customer: %s; want the customers hint", stderr)
	}
}

// A short API key works but start-up says it is weak, without showing it;
// a long one gets no note.
func TestServeNotesShortAPIKeys(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-api-key-env", "KEYS"}, "KEYS", "abc, 0123456789abcdef0123")
	if out := s.stderr.String(); !strings.Contains(out, "note: 1 key in $KEYS is shorter than 16 characters") || strings.Contains(out, "abc") {
		t.Errorf("stderr:\n%s", out)
	}
	if r := s.post(t, "tools/list", nil, "X-API-Key", "abc"); r.Status != 200 {
		t.Errorf("the short key: status %d; want 200", r.Status)
	}
	l := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-api-key-env", "KEYS"}, "KEYS", "0123456789abcdef0123")
	if strings.Contains(l.stderr.String(), "note:") {
		t.Errorf("a long key noted:\n%s", l.stderr.String())
	}
}
