package entity_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

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
