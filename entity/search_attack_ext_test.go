package entity_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// TestAttackSearchText sends search text written in each engine's query
// syntax (FTS5 column filters and operators, tsquery and boolean-mode
// operators), control characters and the length limit: each is a clean
// answer or an "invalid: search" refusal, a column filter never reaches a
// column outside the index, and the tables are unchanged.
func TestAttackSearchText(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			db := eng.Open(t)
			c := serveSearchable(t, db, entity.Engine(eng.Name), nil)
			c.ok("create_product", `{"sku":"Zebra-1","name":"red hammer","tenant":"secretword"}`)
			c.ok("create_product", `{"sku":"Zebra-2","name":"blue saw"}`)
			before := checksum(t, db)
			nasty := []string{
				`sku:Zebra`, `tenant:secretword`, `{sku tenant}: secretword`, `- secretword`, `name:red OR tenant:secretword`,
				`NEAR(red hammer, 1)`, `red AND NOT hammer`, `red*`, `^red`, `"red" "`, `+red -hammer`, `red & !hammer`,
				`red | secretword`, `red <-> hammer`, `!!`, `(`, `)`, `''`, `\`, `%`, `_`, "red\x00", "red\u2028hammer",
				`'; DROP TABLE products; --`, `" OR 1=1 --`, `@@`, `>red <saw`, `~red`, `"red hammer"@2`,
				strings.Repeat("a ", 250), strings.Repeat("é", 500),
			}
			for _, text := range nasty {
				o := c.attempt("list_products", `{"search":`+jsonQuote(text)+`}`)
				clean(t, "search "+clip(text, 40), o)
				if o.refused && !hasAnyPrefix(o.text, "invalid: search", "invalid arguments:\n- search:") {
					t.Errorf("search %q refused as %q", clip(text, 40), o.text)
				}
			}
			// Column filters name columns outside the index: they match
			// nothing (as words), never the sku or tenant.
			for _, text := range []string{`secretword`, `Zebra`, `sku:Zebra`, `tenant:secretword`, `{sku tenant}: secretword`, `tenant : secretword`} {
				o := c.attempt("list_products", `{"search":`+jsonQuote(text)+`}`)
				clean(t, "search "+text, o)
				if !o.refused && o.code == 0 {
					if p := listOf(t, o.raw); len(p.Data) != 0 {
						t.Errorf("search %q found %v through a column outside the index", text, skus(p))
					}
				}
			}
			o := c.attempt("list_products", `{"search":`+jsonQuote(strings.Repeat("x", 501))+`}`)
			if !o.refused && o.code == 0 {
				t.Errorf("a 501-character search was served")
			}
			if after := checksum(t, db); after != before {
				t.Errorf("tables changed by search text")
			}
		})
	}
}

// TestAttackResultSize: a list of records whose values are large stops
// at the bound with hasMore true and pages on; one record larger than the
// bound alone is still served whole (the bound is "at least one record",
// documented on Options.MaxResultBytes), by list and by get.
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
		c, _ := shop(t, db, nil, nil)
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

// TestAttackSearchInScope: search and its count keep to the caller's
// scope; another tenant's matching rows are neither listed nor counted.
func TestAttackSearchInScope(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			db := eng.Open(t)
			c := serveSearchable(t, db, entity.Engine(eng.Name), tenantScope())
			a, b := *c, *c
			a.tenant, b.tenant = "a", "b"
			for i := range 3 {
				a.ok("create_product", fmt.Sprintf(`{"sku":"A-%d","name":"red hammer %d"}`, i, i))
			}
			b.ok("create_product", `{"sku":"B-1","name":"blue hammer"}`)
			for _, args := range []string{`{"search":"hammer"}`, `{"search":"hammer","top":1}`, `{"search":"red"}`,
				`{"search":"hammer","orderBy":"name desc","top":1,"skip":0}`} {
				p := listOf(t, b.ok("list_products", args))
				for _, r := range p.Data {
					if r["tenant"] != "b" {
						t.Errorf("b's search %s lists %v of tenant %v", args, r["sku"], r["tenant"])
					}
				}
				if p.Paging.TotalCount != nil && *p.Paging.TotalCount > 1 {
					t.Errorf("b's search %s counts %d", args, *p.Paging.TotalCount)
				}
			}
		})
	}
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

// serveSearchable creates the products' tables on db, of engine, with a
// search index, and serves them within scope (nil for none).
func serveSearchable(t *testing.T, db *sql.DB, engine entity.Engine, scope *entity.Scope) *client {
	t.Helper()
	for _, q := range productDDL[string(engine)] {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	e, err := entity.Of[Product]()
	if err != nil {
		t.Fatal(err)
	}
	s, err := entity.CreateSearchIndex(t.Context(), db, engine, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Add(e, &entity.Options{Searcher: s, Scope: scope}); err != nil {
		t.Fatal(err)
	}
	return serve(t, srv)
}
