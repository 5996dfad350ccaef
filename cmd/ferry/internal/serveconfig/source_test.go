package serveconfig

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const twoSources = `sources:
  shop:
    db: shop.db
    queries_dir: queries
    statement_timeout: 5s
    max_conns: 4
    only_tables: [products]
    prefix: always
    tool_prefix: s_
    tables:
      products: {hidden: [cost]}
    queries:
      best_sellers: {scopes: [reports]}
  billing:
    db_env: BILLING_DB
    password_env: BILLING_PW
    exclude_tables: [audit]
`

func TestParseSources(t *testing.T) {
	c, err := Parse(filepath.Join("conf", "s.yaml"), []byte(twoSources))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 2 || len(c.Order) != 0 {
		t.Fatalf("sources %+v, tables %v", c.Sources, c.Order)
	}
	s, b := c.Sources[0], c.Sources[1]
	got := []any{s.Name.Value, s.DB, s.QueriesDir, s.StatementTimeout, s.MaxConns, s.OnlyTables, s.Prefix, s.ToolPrefix,
		s.Config.HiddenColumns(), s.Config.Queries["best_sellers"].Scopes,
		b.Name.Value, b.DB, b.DBEnv, b.PasswordEnv, b.ExcludeTables, b.Prefix, b.ToolPrefix, b.NoTables}
	want := []any{"shop", filepath.Join("conf", "shop.db"), filepath.Join("conf", "queries"), 5 * time.Second, 4, []string{"products"}, "always", "s_",
		[]string{"products.cost"}, []string{"reports"},
		"billing", "", "BILLING_DB", "BILLING_PW", []string{"audit"}, "clash", "billing_", false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
}

func TestParseSourcesRefuses(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"sources:\n  shop:\n    db: postgres://u:secret@h/db\n", "s.yaml:3:9: source shop: db: the URL holds a password; a config file holds none: name the variable holding it with password_env: (or the whole URL's with db_env:)"},
		{"sources:\n  shop:\n    db: postgres://u@h/db?password=secret\n", "s.yaml:3:9: source shop: db: the URL holds a password"},
		{"sources:\n  shop:\n    db: a.db\ntables:\n  x: {}\n", "s.yaml: with sources:, give tables: and queries: inside each source, under its name"},
		{"sources:\n  Shop_1:\n    db: a.db\n", `s.yaml:2:3: source name "Shop_1": give 1 to 32 lowercase letters, digits and hyphens`},
		{"sources:\n  shop:\n    queries_dir: q\n", "s.yaml:2:3: source shop: give db: (a SQLite path or a URL) or db_env: (the variable holding the URL)"},
		{"sources:\n  shop:\n    db: a.db\n    db_env: X\n", "s.yaml:2:3: source shop: db: and db_env: exclude each other; give one"},
		{"sources:\n  shop:\n    db: a.db\n    prefix: sometimes\n", "s.yaml:4:13: source shop: prefix must be clash"},
		{"sources:\n  shop:\n    db: a.db\n    max_conns: 0\n", "s.yaml:4:16: source shop: max_conns must be a whole number from 1 to 1000"},
		{"sources:\n  shop:\n    db: a.db\n    only_tables: []\n", "s.yaml:2:3: source shop: only_tables: [] serves no table: give queries_dir: too"},
		{"sources:\n  shop:\n    db: a.db\n    password_env: $X\n", "s.yaml:4:19: source shop: password_env must name an environment variable"},
		{"sources:\n  shop:\n    db: a.db\n    dbenv: X\n", `s.yaml:4:5: unknown key "dbenv" in source shop (known: db, db_env, exclude_tables, max_conns, only_tables, password_env, prefix, queries, queries_dir, statement_timeout, tables, tool_prefix)`},
		{"sources: {}\n", "s.yaml:1:1: sources: names no database"},
	} {
		_, err := Parse("s.yaml", []byte(c.yaml))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v; want %s", c.yaml, err, c.want)
		}
	}
}
