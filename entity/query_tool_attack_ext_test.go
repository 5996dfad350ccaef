package entity_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// hostile are values that would change a statement that spliced them in.
var hostile = []string{
	`'`, `''`, `' OR '1'='1`, `'; DROP TABLE products; --`, `\`, `\'`, `\\'`, `" OR ""="`,
	`-- `, `/* */`, `/*! DELETE FROM products */`, `#`, `@sku`, `@@version`, `?`, `$1`, `:name`,
	`$$`, `$x$ DELETE FROM products $x$`, `%`, `_`, `NULL`, `Robert'); DELETE FROM products;--`,
	"\u02bc OR 1=1 --", "\uff07 OR 1=1 --", "a\u2028b", "tab\there\nnewline", "🦀'🦀", "0x27",
	"CHAR(39)", "E'\\''", "`", "]", `"`, strings.Repeat("'", 60),
}

// everyRow reads every column of every row of the tables, in order, as
// text (checksum, in sql_attack_ext_test.go, reads fewer columns).
func everyRow(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		"SELECT id, name FROM categories ORDER BY id",
		"SELECT id, sku, name, cost, stock, active, category_id, created_at FROM products ORDER BY id",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteByte('\n')
		}
		_ = rows.Close()
	}
	return b.String()
}

// TestAttackQueryInjection sends hostile text to every text parameter:
// the statement never changes (an echo query returns the value as sent,
// the lookups find nothing, the write changes nothing) and the database
// is the same afterwards.
func TestAttackQueryInjection(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		unlimited := func() *ferry.Server {
			return ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler),
				Limits: ferry.Limits{CallRate: -1}})
		}
		c := queryShopOn(t, unlimited(), db, nil)
		srvEcho := unlimited()
		set, err := entity.NewSet(srvEcho, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := entity.ParseQueries("echo.sql", `-- name: echo :one
-- @param v text
SELECT COALESCE(@v, sku) AS v, @v IS NULL AS missing FROM products WHERE sku = 'A-1'`)
		if err != nil {
			t.Fatal(err)
		}
		if err := set.AddQuery(t.Context(), qs[0]); err != nil {
			t.Fatal(err)
		}
		echo := serve(t, srvEcho)
		before := everyRow(t, db)
		for _, v := range hostile {
			arg, _ := json.Marshal(v)
			got := echo.ok("echo", `{"v":`+string(arg)+`}`)
			var r struct{ Data struct{ V string } }
			if err := json.Unmarshal(got, &r); err != nil || r.Data.V != v {
				t.Errorf("echo(%q) = %s", v, got)
			}
			if r := c.call("product", `{"sku":`+string(arg)+`}`); !r.IsError || !strings.HasPrefix(r.text(), "not-found:") {
				t.Errorf("product(%q) = %s; want not-found", v, r.text())
			}
			if got := string(c.ok("restock", `{"sku":`+string(arg)+`,"stock":99}`)); got != `{"rowsAffected":0}` {
				t.Errorf("restock(%q) = %s", v, got)
			}
			// The core reads "$1" as the number 1 (see schema's coercion);
			// the rest is refused as no number.
			if r := c.call("products_costing", `{"min_cost":`+string(arg)+`}`); r.IsError && !strings.HasPrefix(r.text(), "invalid") {
				t.Errorf("products_costing(%q) = %s; want a result or an invalid refusal", v, r.text())
			}
		}
		if r := c.call("product", `{"sku":"a\u0000b"}`); !r.IsError {
			t.Errorf("a NUL: %s; want a refusal", r.text())
		}
		if after := everyRow(t, db); after != before {
			t.Errorf("the database changed:\n%s\n---\n%s", before, after)
		}
	})
}

// writingFunction creates, where the engine has them, a function that
// deletes every product, for a read query to call.
var writingFunction = map[entity.Engine]string{
	entity.PostgreSQL: `CREATE FUNCTION zap() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN DELETE FROM products; RETURN 1; END $$`,
	entity.MySQL:      `CREATE FUNCTION zap() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM products; RETURN 1; END`,
}

// TestAttackQueryHiddenWrites tries to write through a read query. A
// write inside a WITH, or a locking read, is refused at start-up by
// reading the statement, on every engine. A function that writes cannot
// be seen in the text: PostgreSQL and MariaDB refuse its write inside the
// read-only transaction when the tool is called, as forbidden (SQLite has
// no SQL function that writes). The database is unchanged.
func TestAttackQueryHiddenWrites(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		queryShop(t, db, nil) // the rows
		set, err := entity.NewSet(quiet(), db, nil)
		if err != nil {
			t.Fatal(err)
		}
		before := everyRow(t, db)
		for _, text := range []string{
			"WITH d AS (DELETE FROM products) SELECT 1 AS n",
			"WITH d AS (UPDATE products SET stock = 0) SELECT 1 AS n",
			"WITH d AS (INSERT INTO categories (name) VALUES ('x')) SELECT 1 AS n",
			"SELECT 1 AS n FROM products FOR UPDATE",
			"SELECT 1 AS n; DELETE FROM products",
		} {
			q := &entity.Query{Name: "sneaky", Mode: entity.Many, SQL: text}
			if err := set.AddQuery(t.Context(), q); err == nil {
				t.Errorf("%s: served", text)
			}
		}
		fn, ok := writingFunction[set.Engine()]
		if !ok {
			return
		}
		if _, err := db.Exec(fn); err != nil {
			t.Fatal(err)
		}
		srv := quiet()
		set, _ = entity.NewSet(srv, db, nil)
		err = set.AddQuery(t.Context(), &entity.Query{Name: "zap", Mode: entity.Many, SQL: "SELECT zap() AS n",
			Columns: []entity.QueryColumn{{Name: "n", Type: entity.Integer}}})
		if set.Engine() == entity.MySQL {
			// MariaDB runs the function while describing the columns, in
			// the read-only transaction: refused at start-up (error 1792).
			if err == nil || !strings.Contains(err.Error(), "READ ONLY") {
				t.Errorf("zap on MariaDB: %v; want a start-up refusal", err)
			}
		} else {
			if err != nil {
				t.Fatalf("zap: %v", err)
			}
			// PostgreSQL does not run it until called: SQLSTATE 25006.
			if msg := serve(t, srv).refused("zap", `{}`); !strings.HasPrefix(msg, "forbidden:") {
				t.Errorf("zap = %q; want forbidden", msg)
			}
		}
		if after := everyRow(t, db); after != before {
			t.Errorf("the database changed:\n%s\n---\n%s", before, after)
		}
	})
}
