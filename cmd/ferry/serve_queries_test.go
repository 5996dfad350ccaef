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
