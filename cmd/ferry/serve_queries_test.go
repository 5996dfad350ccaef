package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/shop"
)

// demoQueries is the directory of the demo's SQL.
const demoQueries = "internal/shop/queries"

// TestServeDemoQueries serves the demo's queries over its seeded
// database and compares their answers with the ones computed here from
// the rows.
func TestServeDemoQueries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.db")
	db, err := shop.Open(t.Context(), path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := startServe(t, []string{"-db", path, "-queries", demoQueries, "-http", "127.0.0.1:0"})
	names := s.tools(t).names()
	for _, want := range []string{"best_sellers", "customer_spend", "list_products"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if !strings.Contains(s.stderr.String(), "serving 2 queries of "+demoQueries+": best_sellers, customer_spend") {
		t.Errorf("start-up lines: %s", s.stderr.String())
	}

	got := s.call(t, "best_sellers", map[string]any{"since": "2000-01-01", "top": 3})
	if got.IsError {
		t.Fatal(got.text())
	}
	want := bestSellers(t, db, "2000-01-01", 3)
	if d := cmp.Diff(want, roundTrip(t, got.Structured["data"])); d != "" {
		t.Errorf("best_sellers (-want +got):\n%s", d)
	}
	if len(want) != 3 {
		t.Errorf("the demo's orders give %d best sellers; want 3", len(want))
	}

	var email string
	if err := db.QueryRow("SELECT email FROM customers ORDER BY id LIMIT 1").Scan(&email); err != nil {
		t.Fatal(err)
	}
	got = s.call(t, "customer_spend", map[string]any{"email": email})
	var orders, spent int64
	if err := db.QueryRow(`SELECT COUNT(*), COALESCE(SUM(total_cents), 0) FROM orders o JOIN customers c ON c.id = o.customer_id
		WHERE c.email = ? AND o.status <> 'cancelled'`, email).Scan(&orders, &spent); err != nil {
		t.Fatal(err)
	}
	data, _ := got.Structured["data"].(map[string]any)
	if got.IsError || data["orders"] != float64(orders) || data["spent_cents"] != float64(spent) {
		t.Errorf("customer_spend(%s) = %s; want %d orders, %d cents", email, got.text(), orders, spent)
	}
	if r := s.call(t, "customer_spend", map[string]any{"email": "nobody@example.com"}); !r.IsError || !strings.HasPrefix(r.text(), "not-found") {
		t.Errorf("customer_spend of nobody = %s", r.text())
	}
}

// bestSellers computes best_sellers from the rows, in Go.
func bestSellers(t *testing.T, db *sql.DB, since string, top int) []any {
	t.Helper()
	rows, err := db.Query(`SELECT p.sku, p.name, l.qty, l.unit_price_cents, o.status, o.placed_at
		FROM order_lines l JOIN orders o ON o.id = l.order_id JOIN products p ON p.id = l.product_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type agg struct {
		sku, name      string
		units, revenue int64
	}
	by := map[string]*agg{}
	for rows.Next() {
		var sku, name, status, at string
		var qty, price int64
		if err := rows.Scan(&sku, &name, &qty, &price, &status, &at); err != nil {
			t.Fatal(err)
		}
		if status == "cancelled" || at < since {
			continue
		}
		a := by[sku]
		if a == nil {
			a = &agg{sku: sku, name: name}
			by[sku] = a
		}
		a.units += qty
		a.revenue += qty * price
	}
	var all []*agg
	for _, a := range by {
		all = append(all, a)
	}
	slices.SortFunc(all, func(a, b *agg) int {
		if a.units != b.units {
			return int(b.units - a.units)
		}
		return strings.Compare(a.sku, b.sku)
	})
	out := []any{}
	for _, a := range all[:min(top, len(all))] {
		out = append(out, map[string]any{"sku": a.sku, "name": a.name, "units": float64(a.units), "revenue_cents": float64(a.revenue)})
	}
	return out
}

// roundTrip is v through JSON, as a client decodes it.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, _ := json.Marshal(v)
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestServeQueries serves a query directory with and without the tables,
// and refuses what does not prepare, naming the file and line.
func TestServeQueries(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	dir := t.TempDir()
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`-- name: mugs :many
-- Mugs by price.
SELECT sku, price FROM products WHERE sku LIKE 'MUG-%' ORDER BY price

-- name: reprice :exec
-- @param sku text
-- @param price number
UPDATE products SET price = @price WHERE sku = @sku
`)
	s := startServe(t, []string{"-db", d.url, "-queries", dir, "-tables", "", "-http", "127.0.0.1:0"})
	if got := s.tools(t).names(); !cmp.Equal(got, []string{"mugs"}) {
		t.Errorf("-tables '': tools %v; want mugs only (reprice writes)", got)
	}
	if !strings.Contains(s.stderr.String(), "query reprice ("+filepath.Join(dir, "q.sql")+":5) writes: served only with -writes") {
		t.Errorf("start-up does not say reprice is left out: %s", s.stderr.String())
	}
	r := s.call(t, "mugs", nil)
	if d := cmp.Diff(map[string]any{"data": []any{map[string]any{"sku": "MUG-1", "price": 9.5}, map[string]any{"sku": "MUG-3", "price": 11.0}}, "hasMore": false}, roundTrip(t, r.Structured)); d != "" {
		t.Errorf("mugs (-want +got):\n%s", d)
	}
	w := startServe(t, []string{"-db", d.url, "-queries", dir, "-writes", "-http", "127.0.0.1:0"})
	if got := w.tools(t).names(); !slices.Contains(got, "reprice") || !slices.Contains(got, "list_products") {
		t.Errorf("-writes: tools %v", got)
	}
	if r := w.call(t, "reprice", map[string]any{"sku": "MUG-1", "price": 10}); r.IsError || r.text() != `{"rowsAffected":1}` {
		t.Errorf("reprice = %s", r.text())
	}

	write("-- name: broken :many\n-- A typo.\nSELECT sku FROM prodcuts\n")
	code, stderr := failServe(t, []string{"-db", d.url, "-queries", dir, "-http", "127.0.0.1:0"})
	if code == 0 || !strings.Contains(stderr, filepath.Join(dir, "q.sql")+":1: query broken: the database cannot") {
		t.Errorf("a statement that does not prepare: exit %d, %s", code, stderr)
	}
	code, stderr = failServe(t, []string{"-db", d.url, "-tables", "", "-http", "127.0.0.1:0"})
	if code != 2 || !strings.Contains(stderr, "-tables '' serves no table") {
		t.Errorf("-tables '' alone: exit %d, %s", code, stderr)
	}
}

// tokenWith is a token of keys for aud carrying scope and roles claims.
func tokenWith(t *testing.T, keys *jwksServer, iss, aud, scope string, roles ...string) string {
	t.Helper()
	now := time.Now()
	tok, err := jwt.Signed(keys.signer).Claims(jwt.Claims{
		Issuer: iss, Subject: "agent", Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), Expiry: jwt.NewNumericDate(now.Add(time.Hour)),
	}).Claims(map[string]any{"scope": scope, "roles": roles}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestServeAccess serves a config's per-table and per-query access with
// real JWTs: each token sees and calls the tools its scope and roles
// claims allow, reads the schema of the tables it may use, and gets the
// unknown tool's answer for the others.
func TestServeAccess(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "q.sql"), []byte("-- name: mugs :many\nSELECT sku FROM products WHERE sku LIKE 'MUG-%'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "ferry.yaml")
	if err := os.WriteFile(conf, []byte(`tables:
  products:
    access:
      read: {scopes: [shop.read]}
      write: {scopes: [shop.write]}
      delete: {roles: [admin]}
  customers:
    access:
      read: {roles: [staff, admin]}   # write and delete: as read
queries:
  mugs: {scopes: [reports]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := newJWKSServer(t)
	const iss = "https://login.example.com"
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes", "-queries", dir, "-config", conf, "-jwt-jwks", keys.url, "-jwt-issuer", iss})
	tests := []struct {
		name, scope string
		roles       []string
		want        []string
	}{
		{"no scope", "", nil, []string{"list_visits"}},
		{"reader", "shop.read", nil, []string{"get_product", "list_products", "list_visits"}},
		{"writer", "shop.read shop.write", nil, []string{"create_product", "get_product", "list_products", "list_visits", "update_product"}},
		{"admin", "", []string{"admin"}, []string{"create_customer", "delete_customer", "delete_product", "get_customer", "list_customers", "list_visits", "update_customer"}},
		{"reports", "reports", nil, []string{"list_visits", "mugs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bearer := "Bearer " + tokenWith(t, keys, iss, s.url, tt.scope, tt.roles...)
			if got := s.tools(t, "Authorization", bearer).names(); !cmp.Equal(got, tt.want) {
				t.Errorf("tools = %v; want %v", got, tt.want)
			}
			r := s.post(t, "tools/call", map[string]any{"name": "list_products", "arguments": map[string]any{}}, "Authorization", bearer)
			if visible := slices.Contains(tt.want, "list_products"); visible != (r.Error == nil) {
				t.Errorf("list_products: %s %+v; want served %v", r.Result, r.Error, visible)
			}
			r = s.post(t, "resources/read", map[string]any{"uri": "db://entities/product"}, "Authorization", bearer)
			if visible := slices.ContainsFunc(tt.want, func(n string) bool { return strings.HasSuffix(n, "_product") || n == "list_products" }); visible != (r.Error == nil) {
				t.Errorf("db://entities/product: %s %+v; want readable %v", r.Result, r.Error, visible)
			}
		})
	}
	bad := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(bad, []byte("queries:\n  nothing: {scopes: [x]}\n"), 0o600)
	if code, stderr := failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-queries", dir, "-config", bad}); code == 0 || !strings.Contains(stderr, `bad.yaml:2:3: queries: "nothing" is not a query of -queries`) {
		t.Errorf("a queries entry for no query: exit %d, %s", code, stderr)
	}
	_ = os.WriteFile(bad, []byte("tables:\n  products:\n    access:\n      read: {scope: [x]}\n"), 0o600)
	if code, stderr := failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-config", bad}); code == 0 || !strings.Contains(stderr, `bad.yaml:4:14: unknown key "scope"`) {
		t.Errorf("a misspelt key: exit %d, %s", code, stderr)
	}
}
