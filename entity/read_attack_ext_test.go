package entity_test

import (
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

// TestAttackOrderBy sends orderBy values that would be SQL if pasted:
// every one is a clean "orderBy" refusal, and the tables are unchanged.
// Unicode white space between a field and its direction is white space
// (harmless); anything else is not a field.
func TestAttackOrderBy(t *testing.T) {
	refused := []string{
		"name; DROP TABLE products", "name desc, (select 1)", "(select 1)", "1", "name desc --",
		"name/**/desc", "name desc;", "name collate nocase", "NAME", "Name desc", "name\u200bdesc",
		"name DESC NULLS FIRST", "SKU", "tenant", "created_by", "name, name", "name,", ",name",
		"name desc, cost, (CASE WHEN 1=1 THEN id END)", "products.name", `"name"`, "`name`", "[name]",
		"name\x00", "cost+0", "-cost", "id desc limit 1", strings.Repeat("name,", 5000),
	}
	accepted := map[string][]string{
		"cost desc, name": {"P-4", "P-3", "P-2", "P-1", "P-6", "P-5"},
		"name\u00a0desc":  {"P-4", "P-6", "P-5", "P-3", "P-2", "P-1"},
		"name\tDeSc":      {"P-4", "P-6", "P-5", "P-3", "P-2", "P-1"},
		"  stock  ":       {"P-3", "P-6", "P-1", "P-2", "P-4", "P-5"},
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 6)
		before := checksum(t, db)
		for _, ob := range refused {
			o := c.attempt("list_products", `{"orderBy":`+jsonQuote(ob)+`}`)
			what := "orderBy " + clip(ob, 60)
			clean(t, what, o)
			if !o.refused && o.code == 0 {
				t.Errorf("%s = %s; want a refusal", what, clip(string(o.raw), 200))
			} else if o.refused && !hasAnyPrefix(o.text, "invalid: orderBy:", "invalid arguments:\n- orderBy:") {
				t.Errorf("%s refused as %q", what, o.text)
			}
		}
		for ob, want := range accepted {
			p := listOf(t, c.ok("list_products", `{"orderBy":`+jsonQuote(ob)+`}`))
			if d := cmp.Diff(want, skus(p)); d != "" {
				t.Errorf("orderBy %q (-want +got):\n%s", ob, d)
			}
		}
		if after := checksum(t, db); after != before {
			t.Errorf("tables changed by orderBy values")
		}
	})
}

// TestAttackKeyValues names records by values of the wrong kind: huge
// integers, floats for an integer key, strings, booleans, arrays,
// objects and null. Each is a clean refusal (or, for a whole number
// written as a float, the record); nothing is changed.
func TestAttackKeyValues(t *testing.T) {
	values := map[string]string{ // id value -> "found", "refused"
		`1e400`: "refused", `-1e400`: "refused", `99999999999999999999`: "refused",
		`-99999999999999999999`: "refused", `9223372036854775807`: "not-found", `-9223372036854775808`: "not-found",
		`9223372036854775808`: "refused", `1.5`: "refused", `1.0`: "found", `1e0`: "found", `0.1e1`: "found",
		`9007199254740993`: "not-found", `1e17`: "refused", `-0`: "not-found",
		// The server coerces a string holding a whole number (ServerOptions.Coercion).
		`"1"`: "found", `"1e0"`: "found", `"1.5"`: "refused",
		`"1 OR 1=1"`: "refused", `true`: "refused", `[1]`: "refused", `{"id":1}`: "refused", `null`: "not-found",
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 3)
		before := checksum(t, db)
		for v, want := range values {
			for _, call := range []struct{ tool, args string }{
				{"get_product", `{"id":` + v + `}`},
				{"update_product", `{"id":` + v + `,"name":"changed"}`},
				{"delete_product", `{"id":` + v + `,"x":1}`}, // extra member: never deletes
			} {
				if call.tool == "update_product" && want == "found" {
					continue // it would change the record
				}
				o := c.attempt(call.tool, call.args)
				what := call.tool + "(" + call.args + ")"
				clean(t, what, o)
				got := "found"
				switch {
				case o.code != 0 || o.refused && !strings.HasPrefix(o.text, "not-found:"):
					got = "refused"
				case o.refused:
					got = "not-found"
				}
				if call.tool == "delete_product" {
					if got == "found" {
						t.Errorf("%s deleted a record despite an unknown member", what)
					}
					continue
				}
				if got != want {
					t.Errorf("%s = %s %q %s; want %s", what, got, clip(o.text, 120), o.message, want)
				}
			}
		}
		if after := checksum(t, db); after != before {
			t.Errorf("tables changed by key values:\n%s\n%s", before, after)
		}
	})
}

// TestAttackPagingValues sends top and skip out of range or of the wrong
// type: each is refused with the bounds, never clamped or a masked
// failure; a huge skip past the end gives an empty page with the right
// total.
func TestAttackPagingValues(t *testing.T) {
	refused := []string{
		`{"top":-1}`, `{"top":0}`, `{"top":1001}`, `{"top":1e9}`, `{"top":1.5}`, `{"top":1e400}`,
		`{"top":true}`, `{"top":[5]}`, `{"skip":-1}`, `{"skip":"-1"}`, `{"skip":0.5}`, `{"top":"1,000,000"}`,
		`{"skip":9223372036854775808}`, `{"skip":1e400}`, `{"skip":-9223372036854775808}`, `{"filter":5}`,
		`{"orderBy":["name"]}`, `{"filter":{"$ne":1}}`, `{"top":5,"limit":1000000}`,
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 5)
		for _, args := range refused {
			o := c.attempt("list_products", args)
			clean(t, args, o)
			if !o.refused && o.code == 0 {
				t.Errorf("list_products(%s) = %s; want a refusal", args, clip(string(o.raw), 200))
			}
		}
		// A number the schema allows but skip cannot hold is refused
		// naming skip, not as a call that does not fit the schema.
		for _, args := range []string{`{"skip":9223372036854775808}`, `{"skip":1e30}`} {
			if o := c.attempt("list_products", args); !strings.HasPrefix(o.text, "invalid: skip: ") || !strings.Contains(o.text, "out of range") {
				t.Errorf("list_products(%s) = %q; want a refusal naming skip's range", args, o.text)
			}
		}
		for _, skip := range []string{"1000000000", "9223372036854775807", "9223372036854775000"} {
			p := listOf(t, c.ok("list_products", `{"top":1000,"skip":`+skip+`}`))
			if len(p.Data) != 0 || p.Paging.HasMore || p.Paging.TotalCount == nil || *p.Paging.TotalCount != 5 {
				t.Errorf("skip %s: %d rows, paging %+v; want none, total 5", skip, len(p.Data), p.Paging)
			}
		}
		// Whole numbers in other spellings, strings of them and null
		// (absent) are read as the server's coercion reads them.
		for _, args := range []string{`{"top":1e3,"skip":4.0}`, `{"top":"1000","skip":"4"}`, `{"top":null,"skip":4}`} {
			p := listOf(t, c.ok("list_products", args))
			if d := cmp.Diff([]string{"P-5"}, skus(p)); d != "" {
				t.Errorf("%s (-want +got):\n%s", args, d)
			}
		}
	})
}

// TestAttackUUIDKeyValues names a ticket by strings that are not UUIDs,
// UUIDs in other spellings and values of other types: each is a clean
// refusal or not-found, in reads and writes, never a masked failure.
func TestAttackUUIDKeyValues(t *testing.T) {
	ddl := map[string]string{
		"sqlite":   `CREATE TABLE tickets (id TEXT PRIMARY KEY, title TEXT NOT NULL)`,
		"postgres": `CREATE TABLE tickets (id UUID PRIMARY KEY, title TEXT NOT NULL)`,
		"mysql":    `CREATE TABLE tickets (id CHAR(36) PRIMARY KEY, title TEXT NOT NULL)`,
	}
	const id = "0b9e3f4c-2d1a-4c5e-9f00-123456789abc"
	values := []string{
		`"not-a-uuid"`, `"' OR 1=1 --"`, `"0b9e3f4c-2d1a-4c5e-9f00-123456789abG"`,
		`"{0b9e3f4c-2d1a-4c5e-9f00-123456789abc}"`, `"0b9e3f4c2d1a4c5e9f00123456789abc"`, `" ` + id + `"`,
		`"` + id + `\u0000"`, `""`, `5`, `1e400`, `true`, `null`, `["` + id + `"]`, `"` + strings.Repeat("a", 5000) + `"`,
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			if _, err := db.Exec(ddl[e.Name]); err != nil {
				t.Fatal(err)
			}
			srv := quiet()
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := entity.Add[Ticket](set, nil); err != nil {
				t.Fatal(err)
			}
			c := serve(t, srv)
			c.ok("create_ticket", `{"id":"`+id+`","title":"broken"}`)
			for _, v := range values {
				for _, call := range []struct{ tool, args string }{
					{"get_ticket", `{"id":` + v + `}`},
					{"update_ticket", `{"id":` + v + `,"title":"x"}`},
					{"delete_ticket", `{"id":` + v + `}`},
					{"create_ticket", `{"id":` + v + `,"title":"x"}`},
					{"list_tickets", `{"filter":` + jsonQuote("id == "+v) + `}`},
				} {
					o := c.attempt(call.tool, call.args)
					clean(t, call.tool+" "+clip(v, 50), o)
					if !o.refused && o.code == 0 && call.tool != "list_tickets" {
						t.Errorf("%s(%s) = %s; want a refusal", call.tool, clip(call.args, 80), clip(string(o.raw), 100))
					}
				}
			}
			if n := count(t, db, "tickets", "title = 'broken'"); n != 1 {
				t.Errorf("the ticket changed")
			}
			// A UUID in capitals is the same UUID on every engine (as
			// PostgreSQL's uuid type reads it), never a second record.
			upper := strings.ToUpper(id)
			if got := record(t, c.ok("get_ticket", `{"id":"`+upper+`"}`)); got["id"] != id {
				t.Errorf("get_ticket(%s) = %v; want %s", upper, got, id)
			}
			if got := c.refused("create_ticket", `{"id":"`+upper+`","title":"twin"}`); !strings.HasPrefix(got, "conflict:") {
				t.Errorf("create_ticket(%s) = %q; want a conflict with %s", upper, got, id)
			}
			if n := count(t, db, "tickets", ""); n != 1 {
				t.Errorf("%d tickets; want 1", n)
			}
		})
	}
}

// TestAttackResultSize: a list of records whose values are large stops
// at the bound with hasMore true and pages on; one record larger than the
// bound alone is still served whole (the bound is "at least one record",
// documented on Options.MaxResultBytes), by list and by get. The server's
// own result budget, which would cut them, is lifted here: it is tested
// with the list tool in read_ext_test.go.
func TestAttackResultSize(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		if strings.Contains(t.Name(), "mysql") {
			if _, err := db.Exec(`ALTER TABLE products MODIFY name MEDIUMTEXT NOT NULL`); err != nil {
				t.Fatal(err)
			}
		}
		big := strings.Repeat("x", 400_000)
		for i := 1; i <= 6; i++ {
			if _, err := db.Exec(fmt.Sprintf(`INSERT INTO products (sku, name, cost) VALUES ('B-%d', '%s', 1)`, i, big)); err != nil {
				t.Fatal(err)
			}
		}
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{MaxResultBytes: -1}})
		c, _ := shopOn(t, srv, db, nil, nil)
		seen := 0
		for skip, pages := 0, 0; pages < 10; pages++ {
			o := c.attempt("list_products", fmt.Sprintf(`{"skip":%d}`, skip))
			clean(t, "list", o)
			p := listOf(t, o.raw)
			if len(o.raw) > entity.DefaultMaxResultBytes+1024 {
				t.Errorf("skip %d: %d bytes over the %d-byte bound", skip, len(o.raw), entity.DefaultMaxResultBytes)
			}
			seen += len(p.Data)
			skip += len(p.Data)
			if !p.Paging.HasMore {
				break
			}
		}
		if seen != 6 {
			t.Errorf("paged through %d of 6 large records", seen)
		}
		huge := strings.Repeat("y", 3<<20)
		upd := `UPDATE products SET name = ? WHERE sku = 'B-1'`
		if strings.Contains(t.Name(), "postgres") {
			upd = `UPDATE products SET name = $1 WHERE sku = 'B-1'`
		}
		if _, err := db.Exec(upd, huge); err != nil {
			t.Skipf("cannot store a 3 MiB value here: %v", err)
		}
		o := c.attempt("list_products", `{"top":2}`)
		if p := listOf(t, o.raw); len(p.Data) != 1 || !p.Paging.HasMore || len(o.raw) < 3<<20 {
			t.Errorf("a record over the bound: %d records, hasMore %v, %d bytes; want it alone, whole", len(p.Data), p.Paging.HasMore, len(o.raw))
		}
		if o := c.attempt("get_product", `{"sku":"B-1"}`); len(o.raw) < 3<<20 {
			t.Errorf("get of a record over the bound: %d bytes", len(o.raw))
		}
	})
}

// TestAttackHugeSkipCost: skip past the end of a 20,000-row table costs
// one OFFSET scan and one COUNT, well under the call timeout, and
// answers an empty page with the exact total.
func TestAttackHugeSkipCost(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		const n = 20_000
		ins := `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)
			INSERT INTO products (sku, name, cost) SELECT 'Q-' || i, 'item ' || i, i % 7 FROM s`
		switch {
		case strings.Contains(t.Name(), "mysql"):
			ins = `INSERT INTO products (sku, name, cost) WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 20000)
				SELECT CONCAT('Q-', i), CONCAT('item ', i), i % 7 FROM s`
			// MariaDB's session variable; a pooled connection may not be
			// the one that runs the insert, so pin one.
			conn, err := db.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(t.Context(), `SET SESSION max_recursive_iterations = 30000`); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(t.Context(), ins); err != nil {
				t.Fatal(err)
			}
			ins = ""
		case strings.Contains(t.Name(), "postgres"):
			ins = `INSERT INTO products (sku, name, cost) SELECT 'Q-' || i, 'item ' || i, i % 7 FROM generate_series(1, 20000) i`
		}
		if ins != "" {
			if _, err := db.Exec(ins); err != nil {
				t.Fatal(err)
			}
		}
		c, _ := shop(t, db, nil, nil)
		for _, args := range []string{`{"skip":1000000000,"top":1000}`, `{"skip":19999,"top":1000,"filter":"cost >= 0.0"}`,
			`{"skip":9223372036854775807,"filter":"name.contains(\"9\")","orderBy":"name desc"}`} {
			start := time.Now()
			p := listOf(t, c.ok("list_products", args))
			d := time.Since(start)
			t.Logf("%s: %v", args, d)
			if d > 5*time.Second {
				t.Errorf("%s took %v", args, d)
			}
			if p.Paging.TotalCount == nil || p.Paging.HasMore {
				t.Errorf("%s: paging %+v", args, p.Paging)
			} else if strings.Contains(args, "1000000000") && (*p.Paging.TotalCount != n || len(p.Data) != 0) {
				t.Errorf("%s: total %d, %d rows; want %d, none", args, *p.Paging.TotalCount, len(p.Data), n)
			}
		}
	})
}

// TestAttackSlowListTimesOut: the most expensive list a caller can ask
// for (a filter no index serves, ordered by an unindexed text field in
// code-point order, the largest page, skipping most rows, with a total)
// over 200,000 rows, under a 5 ms statement timeout, is an "unavailable"
// refusal, never a masked failure; the pool serves the next call.
func TestAttackSlowListTimesOut(t *testing.T) {
	for _, e := range dbtest.Engines {
		if e.Name == "mysql" {
			continue // a 200,000-row recursive insert is slow on MariaDB; the engine timeout is tested by TestEngineTimeout
		}
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			for _, q := range productDDL[e.Name] {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			ins := `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 200000)
				INSERT INTO products (sku, name, cost) SELECT 'Q-' || i, hex(randomblob(16)), i % 7 FROM s`
			if e.Name == "postgres" {
				ins = `INSERT INTO products (sku, name, cost) SELECT 'Q-' || i, md5(i::text), i % 7 FROM generate_series(1, 200000) i`
			}
			if _, err := db.Exec(ins); err != nil {
				t.Fatal(err)
			}
			c, _ := shop(t, db, &entity.SetOptions{Timeout: 5 * time.Millisecond}, nil)
			start := time.Now()
			o := c.attempt("list_products", `{"filter":"name.contains(\"0\") || cost > 1.0","orderBy":"name desc","top":1000,"skip":150000}`)
			d := time.Since(start)
			clean(t, "slow list", o)
			if !o.refused || !strings.HasPrefix(o.text, "unavailable:") {
				t.Errorf("slow list = %q %s (%v); want unavailable", clip(o.text+string(o.raw), 120), o.message, d)
			}
			if d > 3*time.Second {
				t.Errorf("slow list took %v under a 5 ms timeout", d)
			}
			c2, _ := shop(t, db, nil, nil)
			if p := listOf(t, c2.ok("list_products", `{"top":1}`)); len(p.Data) != 1 {
				t.Errorf("the pool serves no list after a timeout")
			}
		})
	}
}
