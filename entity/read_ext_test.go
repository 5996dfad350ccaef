package entity_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

// page is a list result.
type page struct {
	Data   []map[string]any `json:"data"`
	Paging struct {
		TotalCount *int `json:"totalCount"`
		Skip       int  `json:"skip"`
		Top        int  `json:"top"`
		HasMore    bool `json:"hasMore"`
	} `json:"paging"`
}

func listOf(t testing.TB, raw json.RawMessage) page {
	t.Helper()
	var p page
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return p
}

func skus(p page) []string {
	out := []string{}
	for _, r := range p.Data {
		out = append(out, r["sku"].(string))
	}
	return out
}

// seed creates n products P-1 .. P-n through the tools: cost i%5, stock
// null for every third, name "Item i" (every fourth "item i", lower case).
func seed(t testing.TB, c *client, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("Item %d", i)
		if i%4 == 0 {
			name = strings.ToLower(name)
		}
		stock := fmt.Sprint(i)
		if i%3 == 0 {
			stock = "null"
		}
		c.ok("create_product", fmt.Sprintf(`{"sku":"P-%d","name":%q,"cost":%d,"stock":%s}`, i, name, i%5, stock))
	}
}

func TestPaging(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		const n = 23
		seed(t, c, n)
		for _, order := range []string{"", "cost desc, name", "stock", "name desc"} {
			seen := map[string]int{}
			for skip := 0; ; skip += 5 {
				p := listOf(t, c.ok("list_products", fmt.Sprintf(`{"top":5,"skip":%d,"orderBy":%q}`, skip, order)))
				if p.Paging.TotalCount == nil || *p.Paging.TotalCount != n || p.Paging.Skip != skip || p.Paging.Top != 5 {
					t.Fatalf("order %q skip %d: paging = %+v", order, skip, p.Paging)
				}
				for _, s := range skus(p) {
					seen[s]++
				}
				if !p.Paging.HasMore {
					if skip+len(p.Data) != n {
						t.Errorf("order %q: hasMore false after %d rows", order, skip+len(p.Data))
					}
					break
				}
				if len(p.Data) != 5 {
					t.Fatalf("order %q: a page of %d with hasMore", order, len(p.Data))
				}
			}
			if len(seen) != n {
				t.Errorf("order %q: %d distinct rows across pages; want %d", order, len(seen), n)
			}
			for s, k := range seen {
				if k != 1 {
					t.Errorf("order %q: %s seen %d times", order, s, k)
				}
			}
		}
		p := listOf(t, c.ok("list_products", `{"skip":100}`))
		if len(p.Data) != 0 || p.Paging.HasMore || *p.Paging.TotalCount != n {
			t.Errorf("past the end: %+v", p)
		}
		for _, args := range []string{`{"top":0}`, `{"top":1001}`, `{"skip":-1}`} {
			got := c.refused("list_products", args)
			if !strings.Contains(got, "top") && !strings.Contains(got, "skip") || !strings.HasPrefix(got, "invalid arguments") {
				t.Errorf("list_products(%s) = %q; want the bounds", args, got)
			}
		}
		if got := c.refused("list_products", `{"top":1001}`); !strings.Contains(got, "1000") {
			t.Errorf("top 1001 refused without the bound: %q", got)
		}
	})
}

func TestOrderBy(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 8)
		tests := []struct{ order, want string }{
			{"cost desc, name", "P-4 P-3 P-8 P-2 P-7 P-1 P-6 P-5"},
			// Code point order: upper case before lower case.
			{"name", "P-1 P-2 P-3 P-5 P-6 P-7 P-4 P-8"},
			// NULLs first ascending, then key order.
			{"stock", "P-3 P-6 P-1 P-2 P-4 P-5 P-7 P-8"},
			{"stock DESC", "P-8 P-7 P-5 P-4 P-2 P-1 P-3 P-6"},
		}
		for _, tt := range tests {
			p := listOf(t, c.ok("list_products", fmt.Sprintf(`{"orderBy":%q}`, tt.order)))
			if d := cmp.Diff(strings.Fields(tt.want), skus(p)); d != "" {
				t.Errorf("orderBy %q (-want +got):\n%s", tt.order, d)
			}
		}
		refusals := map[string]string{
			"bogus":         `invalid: orderBy: "bogus" is not a sortable field; sortable fields: id, sku, name, cost, stock, created_at`,
			"active":        `invalid: orderBy: "active" is not a sortable field; sortable fields: id, sku, name, cost, stock, created_at`,
			"cost sideways": `invalid: orderBy: "sideways" after cost is neither asc nor desc; sortable fields: id, sku, name, cost, stock, created_at`,
			"cost, cost":    `invalid: orderBy: cost is given twice; sortable fields: id, sku, name, cost, stock, created_at`,
			"cost;drop":     `invalid: orderBy: "cost;drop" is not a sortable field; sortable fields: id, sku, name, cost, stock, created_at`,
			"cost,":         `invalid: orderBy: "" is not a field optionally followed by asc or desc; sortable fields: id, sku, name, cost, stock, created_at`,
		}
		for order, want := range refusals {
			if got := c.refused("list_products", fmt.Sprintf(`{"orderBy":%q}`, order)); got != want {
				t.Errorf("orderBy %q = %q\nwant %q", order, got, want)
			}
		}
	})
}

func TestListFilter(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 8)
		c.ok("create_product", `{"sku":"Q-1","name":"50% off_sale","cost":2.5,"created_at":"2026-03-01T10:00:00Z"}`)
		tests := []struct{ filter, want string }{
			{`cost > 3`, "P-4"},
			{`cost >= 2 && name.contains("Item")`, "P-2 P-3 P-7"},
			{`stock == null`, "P-3 P-6 Q-1"},
			{`stock != 5`, "P-1 P-2 P-3 P-4 P-6 P-7 P-8 Q-1"},
			{`name.startsWith("item")`, "P-4 P-8"},
			{`name.contains("%")`, "Q-1"},
			{`name.contains("_")`, "Q-1"},
			{`sku in ["P-1", "P-2", "X"]`, "P-1 P-2"},
			{`created_at > timestamp("2026-01-01T00:00:00Z")`, "Q-1"},
			// entfilter's rule: an ordering comparison with a NULL is
			// false, and so is its negation (the row is never kept).
			{`!(stock > 4)`, "P-1 P-2 P-4"},
		}
		for _, tt := range tests {
			p := listOf(t, c.ok("list_products", fmt.Sprintf(`{"filter":%q}`, tt.filter)))
			if d := cmp.Diff(strings.Fields(tt.want), skus(p)); d != "" {
				t.Errorf("filter %s (-want +got):\n%s", tt.filter, d)
			}
			if *p.Paging.TotalCount != len(strings.Fields(tt.want)) {
				t.Errorf("filter %s: totalCount %d", tt.filter, *p.Paging.TotalCount)
			}
		}
		for _, bad := range []string{`cost = 3`, `Cost > 3`, `tenant == "a"`, `name LIKE '%x%'`} {
			r := c.call("list_products", fmt.Sprintf(`{"filter":%q}`, bad))
			if !r.IsError || !strings.HasPrefix(r.text(), "invalid: filter: ") || !strings.Contains(r.text(), "filterable fields") {
				t.Errorf("filter %s = %q; want a refusal listing the filterable fields", bad, r.text())
			}
		}
		if n := count(t, db, "products", ""); n != 9 {
			t.Errorf("%d products after filters", n)
		}
	})
}

func TestSearch(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			c := serveSearchable(t, eng.Open(t), entity.Engine(eng.Name), nil)
			for _, p := range []string{`{"sku":"S-1","name":"red hammer"}`, `{"sku":"S-2","name":"blue hammer"}`, `{"sku":"S-3","name":"red saw"}`} {
				c.ok("create_product", p)
			}
			p := listOf(t, c.ok("list_products", `{"search":"saw"}`))
			if d := cmp.Diff([]string{"S-3"}, skus(p)); d != "" || *p.Paging.TotalCount != 1 {
				t.Errorf("search saw (-want +got):\n%s %+v", d, p.Paging)
			}
			p = listOf(t, c.ok("list_products", `{"search":"hammer","orderBy":"sku desc","top":1}`))
			if d := cmp.Diff([]string{"S-2"}, skus(p)); d != "" || *p.Paging.TotalCount != 2 || !p.Paging.HasMore {
				t.Errorf("search hammer (-want +got):\n%s %+v", d, p.Paging)
			}
			p = listOf(t, c.ok("list_products", `{"search":"hammer","top":1,"filter":"sku != \"S-1\""}`))
			if d := cmp.Diff([]string{"S-2"}, skus(p)); d != "" || *p.Paging.TotalCount != 1 {
				t.Errorf("search with a filter (-want +got):\n%s %+v", d, p.Paging)
			}
			for _, nasty := range []string{`don't`, `multi-agent`, `"`, `*`, `a' OR 1=1 --`, `NEAR(`} {
				r := c.call("list_products", fmt.Sprintf(`{"search":%q}`, nasty))
				if r.IsError && !strings.HasPrefix(r.text(), "invalid: search") {
					t.Errorf("search %q = %q", nasty, r.text())
				}
			}
			if got := c.refused("list_products", `{"search":"   "}`); got != "invalid: search: give at least one word (letters or digits)" {
				t.Errorf("empty search = %q", got)
			}
		})
	}
}

func TestResultBytesBound(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, &entity.Options{MaxResultBytes: 600})
		seed(t, c, 10)
		seen := map[string]bool{}
		for skip, pages := 0, 0; ; pages++ {
			p := listOf(t, c.ok("list_products", fmt.Sprintf(`{"skip":%d}`, skip)))
			if len(p.Data) == 0 || len(p.Data) > 4 || pages > 10 {
				t.Fatalf("skip %d: a page of %d records under a 600-byte bound", skip, len(p.Data))
			}
			for _, s := range skus(p) {
				seen[s] = true
			}
			skip += len(p.Data)
			if !p.Paging.HasMore {
				break
			}
		}
		if len(seen) != 10 {
			t.Errorf("%d records across bounded pages; want 10", len(seen))
		}
	})
}

// A page over the server's result budget is cut at a whole record, its
// paging's hasMore set, valid against the list tool's output schema, and
// the records kept are the first of the page, so that the caller pages on
// with a larger skip and reaches every row.
func TestListPageOverTheServersResultBudgetIsCutAtARecord(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000)
		INSERT INTO products (sku, name, created_by) SELECT 'P-' || x, 'Product number ' || x, 'someone with a long name, ' || x FROM c`); err != nil {
		t.Fatal(err)
	}
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{MaxResultBytes: 50_000}})
	c, set := shopOn(t, srv, db, nil, nil)
	check, err := schema.Compile(entity.ListSchema(set, "product"), schema.Strict)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for skip := 0; seen < 5000; {
		r := c.call("list_products", `{"top":1000,"skip":`+strconv.Itoa(skip)+`,"orderBy":"id"}`)
		if r.IsError || len(r.Structured) > 50_000 {
			t.Fatalf("skip %d: isError %v, %d bytes", skip, r.IsError, len(r.Structured))
		}
		if _, errs := check.Validate(r.Structured); len(errs) > 0 {
			t.Fatalf("skip %d: invalid against the output schema: %v", skip, errs)
		}
		var page struct {
			Data   []struct{ ID int64 }
			Paging struct{ HasMore bool }
		}
		if err := json.Unmarshal(r.Structured, &page); err != nil || len(page.Data) == 0 {
			t.Fatalf("skip %d: %v, %d records", skip, err, len(page.Data))
		}
		for i, rec := range page.Data {
			if rec.ID != int64(skip+i+1) {
				t.Fatalf("skip %d: record %d has id %d", skip, i, rec.ID)
			}
		}
		seen += len(page.Data)
		skip += len(page.Data)
		if seen < 5000 != page.Paging.HasMore {
			t.Fatalf("skip %d: hasMore %v after %d records", skip, page.Paging.HasMore, seen)
		}
		if page.Paging.HasMore && len(page.Data) < 1000 && !strings.Contains(r.text(), "hasMore is set") {
			t.Errorf("skip %d: no notice in %s", skip, r.text()[max(0, len(r.text())-300):])
		}
	}
}
