package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
