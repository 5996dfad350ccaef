package entity_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// queryShop serves the product entities and the queries of
// testdata/queries on db, with a few products created through the
// entity tools (so that every engine stores them its own way): NULLs,
// quotes, non-ASCII text and a timestamp among them.
func queryShop(t *testing.T, db *sql.DB, setOpts *entity.SetOptions) *client {
	t.Helper()
	return queryShopOn(t, quiet(), db, setOpts)
}

// queryShopOn is queryShop on a server the test made.
func queryShopOn(t *testing.T, srv *ferry.Server, db *sql.DB, setOpts *entity.SetOptions) *client {
	t.Helper()
	set, err := entity.NewSet(srv, db, setOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Category](set, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Product](set, nil); err != nil {
		t.Fatal(err)
	}
	qs, err := entity.ReadQueries("testdata/queries")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if err := set.AddQuery(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	c := serve(t, srv)
	c.ok("create_category", `{"name":"Tools"}`)
	c.ok("create_category", `{"name":"Empty"}`)
	c.ok("create_product", `{"sku":"A-1","name":"Hammer","cost":12.5,"stock":3,"category_id":1,"created_at":"2024-03-01T10:20:30.123456Z"}`)
	c.ok("create_product", `{"sku":"A-2","name":"Saw 'n \"Co\"","cost":7,"stock":null,"active":false,"category_id":1}`)
	c.ok("create_product", `{"sku":"B-1","name":"Żółw ✓","cost":0}`)
	return c
}

// asJSON decodes a result for comparison: numbers as float64, so that
// 12.50 and 12.5 are one value.
func asJSON(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

// TestQueryAnswersAlike calls each query with the same rows on each
// engine and compares the answers with the ones written by hand here.
func TestQueryAnswersAlike(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"products_costing", `{}`, `{"data":[
			{"sku":"A-1","name":"Hammer","cost":12.5,"stock":3,"active":true,"created_at":"2024-03-01T10:20:30.123456Z","category":"Tools"},
			{"sku":"A-2","name":"Saw 'n \"Co\"","cost":7,"stock":null,"active":false,"created_at":null,"category":"Tools"},
			{"sku":"B-1","name":"Żółw ✓","cost":0,"stock":null,"active":true,"created_at":null,"category":null}],"hasMore":false}`},
		{"products_costing", `{"min_cost":7.5}`, `{"data":[
			{"sku":"A-1","name":"Hammer","cost":12.5,"stock":3,"active":true,"created_at":"2024-03-01T10:20:30.123456Z","category":"Tools"}],"hasMore":false}`},
		{"products_costing", `{"min_cost":1000}`, `{"data":[],"hasMore":false}`},
		{"product", `{"sku":"B-1"}`, `{"data":{"sku":"B-1","name":"Żółw ✓","stock":null}}`},
		{"stock_per_category", `{}`, `{"data":[
			{"category":"Empty","n":0,"stock":null},
			{"category":"Tools","n":2,"stock":3}],"hasMore":false}`},
		{"cheaper_than", `{"max":100}`, `{"data":[{"sku":"A-1"},{"sku":"A-2"}],"hasMore":true}`},
		{"cheaper_than", `{"max":7}`, `{"data":[{"sku":"B-1"}],"hasMore":false}`},
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c := queryShop(t, db, nil)
		for _, tt := range tests {
			got := c.ok(tt.tool, tt.args)
			if d := cmp.Diff(asJSON(t, json.RawMessage(tt.want)), asJSON(t, got)); d != "" {
				t.Errorf("%s(%s) (-want +got):\n%s", tt.tool, tt.args, d)
			}
		}
		if msg := c.refused("product", `{"sku":"none"}`); !strings.HasPrefix(msg, "not-found:") {
			t.Errorf("product of no sku = %q; want not-found", msg)
		}
	})
}

// TestQueryWrites runs the :exec queries: rowsAffected, the change made,
// a null bound where the parameter takes one.
func TestQueryWrites(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c := queryShop(t, db, nil)
		if got := string(c.ok("restock", `{"sku":"A-2","stock":40}`)); got != `{"rowsAffected":1}` {
			t.Errorf("restock = %s", got)
		}
		if n := count(t, db, "products", "stock = 40"); n != 1 {
			t.Errorf("%d rows with stock 40; want 1", n)
		}
		c.ok("restock", `{"sku":"A-1"}`)
		if n := count(t, db, "products", "stock IS NULL"); n != 2 {
			t.Errorf("%d rows with no stock; want 2 (A-1 and B-1)", n)
		}
		if got := string(c.ok("remove_product", `{"sku":"nothing"}`)); got != `{"rowsAffected":0}` {
			t.Errorf("remove_product of no row = %s", got)
		}
		c.ok("remove_product", `{"sku":"B-1"}`)
		if n := count(t, db, "products", ""); n != 2 {
			t.Errorf("%d products left; want 2", n)
		}
	})
}

// TestQueryToolHints checks the hints and schemas each statement gives
// its tool.
func TestQueryToolHints(t *testing.T) {
	db := sqliteShop(t)
	c := queryShop(t, db, nil)
	tools := c.tools()
	type hints struct {
		ReadOnlyHint, DestructiveHint, IdempotentHint *bool
	}
	tr, fa := true, false
	want := map[string]hints{
		"products_costing": {ReadOnlyHint: &tr},
		"product":          {ReadOnlyHint: &tr},
		"restock":          {ReadOnlyHint: &fa, DestructiveHint: &fa, IdempotentHint: &fa},
		"remove_product":   {ReadOnlyHint: &fa, DestructiveHint: &tr, IdempotentHint: &fa},
	}
	for name, w := range want {
		var tl struct {
			Title       string
			Annotations hints
			InputSchema struct {
				Required []string
			}
		}
		if err := json.Unmarshal(tools[name], &tl); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w.ReadOnlyHint != nil && *w.ReadOnlyHint {
			if tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
				t.Errorf("%s: not read-only: %s", name, tools[name])
			}
			continue
		}
		if d := cmp.Diff(w, tl.Annotations); d != "" {
			t.Errorf("%s hints (-want +got):\n%s\n%s", name, d, tools[name])
		}
	}
	var product struct {
		Title       string
		InputSchema struct {
			Required   []string
			Properties map[string]map[string]any
		}
	}
	_ = json.Unmarshal(tools["product"], &product)
	if product.Title != "Product by sku" || !cmp.Equal(product.InputSchema.Required, []string{"sku"}) ||
		product.InputSchema.Properties["sku"]["maxLength"] != float64(64) {
		t.Errorf("product tool = %s", tools["product"])
	}
	// The schema is enforced before the statement runs.
	if msg := c.refused("products_costing", `{"min_cost":-1}`); !strings.Contains(msg, "min_cost") {
		t.Errorf("min_cost -1: %q", msg)
	}
	if msg := c.refused("product", `{"sku":"A-1","other":1}`); !strings.Contains(msg, "other") {
		t.Errorf("unknown argument: %q", msg)
	}
}

// TestQueryRefusedAtStart adds statements that must not be served and
// checks the error names the file, the line and the reason.
func TestQueryRefusedAtStart(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		set, err := entity.NewSet(quiet(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct{ name, file, want string }{
			{"no such table", "-- name: q :many\nSELECT x FROM nowhere", "q.sql:1: query q: the database cannot"},
			{"write as many", "-- name: q :many\nDELETE FROM products", "must only read"},
			{"delete in a with", "-- name: q :many\nWITH d AS (DELETE FROM products RETURNING sku) SELECT sku FROM d", "RETURNING"},
			{"update in a with", "-- name: q :many\nWITH d AS (UPDATE products SET stock = 1) SELECT 1 AS one", "must only read"},
			{"for update", "-- name: q :many\nSELECT sku FROM products FOR UPDATE", "must not hold UPDATE"},
			{"select into", "-- name: q :many\nSELECT sku INTO copy FROM products", "INTO"},
			{"ddl", "-- name: q :exec\nDROP TABLE products", "DROP statements are not served"},
			{"two statements", "-- name: q :exec\nDELETE FROM products; DELETE FROM categories", "q.sql:2: query q: a second statement"},
			{"driver placeholder", "-- name: q :many\nSELECT sku FROM products\nWHERE sku = ?", "q.sql:3: query q: a ? placeholder"},
			{"read as exec", "-- name: q :exec\nSELECT 1 AS one", "must write"},
			{"returning", "-- name: q :exec\n-- @param s text\nDELETE FROM products WHERE sku = @s RETURNING sku", "RETURNING"},
			{"unused param", "-- name: q :many\n-- @param s text\nSELECT sku FROM products", "does not use @s"},
			{"same column twice", "-- name: q :many\nSELECT sku, name AS sku FROM products", "sku"},
			{"bad default", "-- name: q :many\n-- @param n integer default:\"\\\"x\\\"\"\nSELECT sku FROM products WHERE stock = @n", "default"},
		}
		for _, tt := range tests {
			qs, err := entity.ParseQueries("q.sql", tt.file)
			if err == nil {
				err = set.AddQuery(t.Context(), qs[0])
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: %v; want %q", tt.name, err, tt.want)
			}
		}
	})
}

// TestQueryOnReadOnlySet refuses a write query on a read-only Set.
func TestQueryOnReadOnlySet(t *testing.T) {
	db := sqliteShop(t)
	set, err := entity.NewSet(quiet(), db, &entity.SetOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	qs, _ := entity.ParseQueries("w.sql", "-- name: w :exec\nDELETE FROM products")
	if err := set.AddQuery(t.Context(), qs[0]); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("AddQuery = %v; want a read-only refusal", err)
	}
}

// TestQueryTimeout ends a read that runs past the Set's timeout with an
// unavailable refusal.
func TestQueryTimeout(t *testing.T) {
	slow := map[string]string{
		"sqlite":   "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) AS n FROM r",
		"postgres": "SELECT 1 AS n FROM pg_sleep(5)",
		"mysql":    "SELECT SLEEP(5) AS n",
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		srv := quiet()
		set, err := entity.NewSet(srv, db, &entity.SetOptions{Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		engine := map[entity.Engine]string{entity.SQLite: "sqlite", entity.PostgreSQL: "postgres", entity.MySQL: "mysql"}[set.Engine()]
		q := &entity.Query{Name: "slow", Mode: entity.Many, SQL: slow[engine], Columns: []entity.QueryColumn{{Name: "n", Type: entity.Integer}}}
		if err := set.AddQuery(t.Context(), q); err != nil {
			t.Fatal(err)
		}
		c := serve(t, srv)
		r := c.call("slow", `{}`)
		if !r.IsError || !strings.HasPrefix(r.text(), "unavailable:") {
			// MySQL's SLEEP returns 1 when the statement time ends it.
			if !(engine == "mysql" && strings.Contains(string(r.Structured), `"n":1`)) {
				t.Errorf("slow = %s; want unavailable", r.text())
			}
		}
	})
}

// sqliteShop opens SQLite with the product schema.
func sqliteShop(t *testing.T) *sql.DB {
	t.Helper()
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
