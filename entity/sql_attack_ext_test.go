package entity_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// checksum is the products and categories tables' contents, for checking
// that nothing changed them.
func checksum(t testing.TB, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"SELECT id, sku, name FROM products ORDER BY id", "SELECT id, name FROM categories ORDER BY id"} {
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
			fmt.Fprintf(&b, "%s|", fmt.Sprint(vals...))
		}
		rows.Close()
	}
	return b.String()
}

// TestHostileArguments sends what an injection would: every call is
// answered (a result or a refusal, never a masked database failure) and
// the tables are unchanged.
func TestHostileArguments(t *testing.T) {
	nasty := []string{
		`'`, `"`, "`", `\`, `\'`, `'; DROP TABLE products; --`, `" OR 1=1 --`, `/* */`, `;`, `%`, `_`, `%_%`,
		"A-1\x00", "ＡＬＬ", "A‐1", "\u202e", strings.Repeat("x", 1500), `$1`, `?`, `:name`, `@p1`,
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 3)
		c.ok("create_category", `{"name":"Tools"}`)
		before := checksum(t, db)
		for _, s := range nasty {
			q := jsonQuote(s)
			for _, call := range []struct{ tool, args string }{
				{"get_product", `{"sku":` + q + `}`},
				{"delete_product", `{"sku":` + q + `}`},
				{"update_product", `{"sku":` + q + `,"name":"x"}`},
				{"list_products", `{"filter":` + jsonQuote("name == "+q) + `}`},
				{"list_products", `{"filter":` + jsonQuote("name.contains("+q+")") + `}`},
				{"list_products", `{"orderBy":` + q + `}`},
				{"get_category", `{"name":` + q + `}`},
			} {
				r := c.call(call.tool, call.args)
				if strings.Contains(r.text(), "failed unexpectedly") {
					t.Errorf("%s(%s): %s", call.tool, call.args, r.text())
				}
				if !r.IsError && call.tool != "list_products" {
					t.Errorf("%s(%s) found a record: %s", call.tool, call.args, r.text())
				}
				if call.tool == "list_products" && !r.IsError && len(listOf(t, r.Structured).Data) != 0 {
					t.Errorf("%s(%s) matched rows: %s", call.tool, call.args, r.text())
				}
			}
		}
		if after := checksum(t, db); after != before {
			t.Errorf("the tables changed:\n%s\n%s", before, after)
		}
	})
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestConcurrentCalls runs reads and writes at once (under -race, a test
// of the Set's own state too).
func TestConcurrentCalls(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 5 {
					sku := fmt.Sprintf("G-%d%d", g, i)
					r := c.call("create_product", `{"sku":"`+sku+`","name":"n"}`)
					if r.IsError && !strings.Contains(r.text(), "locked") && !strings.Contains(r.text(), "busy") {
						t.Errorf("create %s: %s", sku, r.text())
					}
					c.call("list_products", `{"filter":"name == \"n\""}`)
					c.call("get_product", `{"sku":"`+sku+`"}`)
				}
			})
		}
		wg.Wait()
		if n := count(t, db, "products", ""); n != 20 {
			t.Errorf("%d products after 20 concurrent creates", n)
		}
	})
}
