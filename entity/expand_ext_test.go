package entity_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

// The expand fixture: orders referring to customers, whose secret column
// is hidden, and one order referring to no customer.
var expandDDL = map[string][]string{
	"sqlite": {
		`CREATE TABLE i24exp_customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, tenant TEXT NOT NULL, secret TEXT)`,
		`CREATE TABLE i24exp_orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES i24exp_customers(id), total INTEGER NOT NULL)`,
	},
	"postgres": {
		`CREATE TABLE i24exp_customers (id bigint PRIMARY KEY, name text NOT NULL, country text, tenant text NOT NULL, secret text)`,
		`CREATE TABLE i24exp_orders (id bigint PRIMARY KEY, customer_id bigint REFERENCES i24exp_customers(id), total integer NOT NULL)`,
	},
	"mysql": {
		`CREATE TABLE i24exp_customers (id bigint PRIMARY KEY, name varchar(50) NOT NULL, country varchar(2), tenant varchar(10) NOT NULL, secret varchar(50)) ENGINE=InnoDB`,
		`CREATE TABLE i24exp_orders (id bigint PRIMARY KEY, customer_id bigint, total int NOT NULL, FOREIGN KEY (customer_id) REFERENCES i24exp_customers(id)) ENGINE=InnoDB`,
	},
}

func loadExpand(t *testing.T, engine string, db *sql.DB) {
	t.Helper()
	execAll(t, db, expandDDL[engine]...)
	execAll(t, db,
		`INSERT INTO i24exp_customers VALUES (1, 'Ada', 'NL', 'a', 'S1'), (2, 'Bo', 'PT', 'b', 'S2'), (3, 'Cy', NULL, 'a', 'S3')`,
		`INSERT INTO i24exp_orders VALUES (10, 1, 100), (11, 2, 200), (12, 1, 300), (13, NULL, 400), (14, 3, 500)`)
}

// expandServer serves the fixture introspected, secret hidden, with
// customers' options given, and counts the reads of customers.
func expandServer(t *testing.T, db *sql.DB, customers *entity.Options) (*client, *atomic.Int64) {
	t.Helper()
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallRate: -1}})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := entity.Introspect(t.Context(), db, set.Engine(), &entity.IntrospectOptions{
		Tables: []string{"i24exp_customers", "i24exp_orders"}, ExcludeColumns: []string{"i24exp_customers.secret"}})
	if err != nil {
		t.Fatal(err)
	}
	reads := new(atomic.Int64)
	if customers == nil {
		customers = &entity.Options{}
	}
	customers.Hooks.BeforeRead = func(context.Context, *entity.Read) error { reads.Add(1); return nil }
	for _, e := range es {
		o := &entity.Options{}
		if e.Table == "i24exp_customers" {
			o = customers
		}
		if _, err := set.Add(e, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return serve(t, srv), reads
}

// recordsOf decodes a list result's data.
func recordsOf(t *testing.T, raw json.RawMessage) []map[string]any {
	t.Helper()
	var p struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return p.Data
}

// A list expands a relation with one read of the referenced entity for
// the whole page, nests each record (null for a null reference), and
// shows none of its hidden columns; get does the same for one record.
func TestExpandNestsReferencedRecords(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadExpand(t, e.Name, db)
			c, reads := expandServer(t, db, nil)
			got := recordsOf(t, c.ok("list_i24exp_orders", `{"expand":["customer"]}`))
			ada := map[string]any{"id": 1.0, "name": "Ada", "country": "NL", "tenant": "a"}
			bo := map[string]any{"id": 2.0, "name": "Bo", "country": "PT", "tenant": "b"}
			cy := map[string]any{"id": 3.0, "name": "Cy", "country": nil, "tenant": "a"}
			want := []map[string]any{
				{"id": 10.0, "customer_id": 1.0, "total": 100.0, "customer": ada},
				{"id": 11.0, "customer_id": 2.0, "total": 200.0, "customer": bo},
				{"id": 12.0, "customer_id": 1.0, "total": 300.0, "customer": ada},
				{"id": 13.0, "customer_id": nil, "total": 400.0, "customer": nil},
				{"id": 14.0, "customer_id": 3.0, "total": 500.0, "customer": cy},
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("list with expand (-want +got):\n%s", d)
			}
			if n := reads.Load(); n != 1 {
				t.Errorf("customers were read %d times for one page; want once", n)
			}
			one := c.ok("get_i24exp_order", `{"id":12,"expand":["customer"]}`)
			var g struct{ Data map[string]any }
			if err := json.Unmarshal(one, &g); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want[2], g.Data); d != "" {
				t.Errorf("get with expand (-want +got):\n%s", d)
			}
			for _, raw := range []json.RawMessage{c.ok("list_i24exp_orders", `{"expand":["customer"],"top":2}`), one} {
				if strings.Contains(string(raw), "S1") || strings.Contains(string(raw), "secret") {
					t.Errorf("an expand shows the hidden column: %s", raw)
				}
			}
			plain := recordsOf(t, c.ok("list_i24exp_orders", `{"top":1}`))
			if _, ok := plain[0]["customer"]; ok {
				t.Errorf("a list without expand nests: %v", plain[0])
			}
		})
	}
}

// The referenced entity's scope applies to what is nested: a customer of
// another tenant is null, as one that does not exist.
func TestExpandKeepsTheReferencedScope(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadExpand(t, e.Name, db)
			c, _ := expandServer(t, db, &entity.Options{Scope: &entity.Scope{Field: "tenant",
				Value: func(context.Context, *ferry.Principal) (any, error) { return "a", nil }}})
			got := recordsOf(t, c.ok("list_i24exp_orders", `{"expand":["customer"]}`))
			var names []any
			for _, r := range got {
				if cu, ok := r["customer"].(map[string]any); ok {
					names = append(names, cu["name"])
				} else {
					names = append(names, r["customer"])
				}
			}
			if d := cmp.Diff([]any{"Ada", nil, "Ada", nil, "Cy"}, names); d != "" {
				t.Errorf("nested customers in scope a (-want +got):\n%s", d)
			}
			if r := c.call("get_i24exp_order", `{"id":11,"expand":["customer"]}`); r.IsError || !strings.Contains(r.text(), `"customer":null`) {
				t.Errorf("get of an order whose customer is out of scope: %s", r.text())
			}
		})
	}
}

// An entity whose get and list tools the caller cannot call is never
// nested: expand is refused as forbidden.
func TestExpandNeedsTheReferencedTools(t *testing.T) {
	db := dbtest.SQLite(t)
	loadExpand(t, "sqlite", db)
	c, _ := expandServer(t, db, &entity.Options{Exclude: []entity.Op{entity.Get, entity.List}})
	if r := c.call("list_i24exp_orders", `{"expand":["customer"]}`); !r.IsError || !strings.HasPrefix(r.text(), "forbidden") {
		t.Errorf("expand of an entity the caller cannot read: %s", r.text())
	}
}

// ids are the ids of a list result's records.
func ids(t *testing.T, raw json.RawMessage) []float64 {
	t.Helper()
	out := []float64{}
	for _, r := range recordsOf(t, raw) {
		out = append(out, r["id"].(float64))
	}
	return out
}

// A filter may name a related record's filterable fields: null where the
// reference is null or its record out of the caller's scope, with CEL's
// meaning of a null; its hidden columns are no fields.
func TestFilterOnRelatedFields(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadExpand(t, e.Name, db)
			c, _ := expandServer(t, db, nil)
			for _, tt := range []struct {
				filter string
				want   []float64
			}{
				{`customer.country == "NL"`, []float64{10, 12}},
				{`!(customer.country == "NL")`, []float64{11, 13, 14}},
				{`customer.country == null`, []float64{13, 14}},
				{`customer.country < "P"`, []float64{10, 12}},
				{`!(customer.country < "P")`, []float64{11}},
				{`customer.name.startsWith("B") || total > 450`, []float64{11, 14}},
				{`customer.id == customer_id`, []float64{10, 11, 12, 13, 14}}, // null == null
				{`customer.country == "NL" && total > 150`, []float64{12}},
			} {
				args, _ := json.Marshal(map[string]string{"filter": tt.filter})
				raw := c.ok("list_i24exp_orders", string(args))
				if d := cmp.Diff(tt.want, ids(t, raw)); d != "" {
					t.Errorf("%s (-want +got):\n%s", tt.filter, d)
				}
			}
			for _, bad := range []string{`customer.secret == "S1"`, `customers.country == "NL"`, `customer.country.secret == "x"`} {
				args, _ := json.Marshal(map[string]string{"filter": bad})
				if r := c.call("list_i24exp_orders", string(args)); !r.IsError || !strings.HasPrefix(r.text(), "invalid") || strings.Contains(r.text(), "S1\"") {
					t.Errorf("%s: %.200s; want an invalid refusal", bad, r.text())
				}
			}
			scoped, _ := expandServer(t, db, &entity.Options{Scope: &entity.Scope{Field: "tenant",
				Value: func(context.Context, *ferry.Principal) (any, error) { return "a", nil }}})
			if got := ids(t, scoped.ok("list_i24exp_orders", `{"filter":"customer.country == \"PT\""}`)); len(got) != 0 {
				t.Errorf("a filter on a customer out of scope keeps %v", got)
			}
			if got := ids(t, scoped.ok("list_i24exp_orders", `{"filter":"customer.name == null"}`)); !cmp.Equal(got, []float64{11, 13}) {
				t.Errorf("customer.name == null in scope a keeps %v; want the orders of no customer in scope", got)
			}
			hidden, _ := expandServer(t, db, &entity.Options{Exclude: []entity.Op{entity.Get, entity.List}})
			if r := hidden.call("list_i24exp_orders", `{"filter":"customer.country == \"NL\""}`); !r.IsError || !strings.HasPrefix(r.text(), "forbidden") {
				t.Errorf("a filter on customers the caller cannot read: %s", r.text())
			}
		})
	}
}

// TestExpandGoTypeReference expands a Go type's reference that names the
// entity alone (ref:"category"), which refers to its key; it was refused
// as not served before.
func TestExpandGoTypeReference(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		c.ok("create_category", `{"name": "Tea"}`)
		c.ok("create_product", `{"sku": "A-1", "name": "Green", "category_id": 1}`)
		got := string(c.ok("list_products", `{"expand": ["category"], "filter": "category.name == \"Tea\""}`))
		if !strings.Contains(got, `"category":{"id":1,"name":"Tea"}`) {
			t.Errorf("list_products with expand: %s", got)
		}
	})
}
