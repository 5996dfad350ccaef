package entity_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

// validationErrors reads a refusal's structured validationErrors.
func validationErrors(t testing.TB, r *result) []string {
	t.Helper()
	var sc struct {
		ValidationErrors []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"validationErrors"`
	}
	if err := json.Unmarshal(r.Structured, &sc); err != nil {
		t.Fatalf("%s: %v", r.Structured, err)
	}
	var out []string
	for _, v := range sc.ValidationErrors {
		out = append(out, v.Path)
	}
	return out
}

func TestConstraintRefusals(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		srv := quiet()
		set, err := entity.NewSet(srv, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := entity.Add[Category](set, nil); err != nil {
			t.Fatal(err)
		}
		// The model says name may be null; the table does not: the
		// database's refusal must read as one.
		e, err := entity.Of[Product]()
		if err != nil {
			t.Fatal(err)
		}
		e.Field("name").Nullable = true
		if _, err := set.Add(e, nil); err != nil {
			t.Fatal(err)
		}
		c := serve(t, srv)
		c.ok("create_category", `{"name":"Tools"}`)
		c.ok("create_product", `{"sku":"A-1","name":"Hammer","category_id":1}`)
		tests := []struct {
			name, tool, args, want, path string
		}{
			{"unique", "create_product", `{"sku":"A-1","name":"Other"}`, `conflict: a product with sku "A-1" exists`, "sku"},
			{"unique on update", "update_product", `{"id":1,"name":"x"}`, "", ""},
			{"foreign key", "create_product", `{"sku":"A-2","name":"Saw","category_id":99}`, "invalid: category_id: 99 refers to no category", "category_id"},
			{"foreign key on delete", "delete_category", `{"id":1}`, "conflict: other records refer to this category; delete or change them first", ""},
			{"not null", "create_product", `{"sku":"A-3","name":null}`, "invalid: name: must not be null", "name"},
			{"check", "create_product", `{"sku":"A-4","name":"Nail","cost":-1}`, "invalid: cost: -1 breaks a check of the products table", "cost"},
			{"check on update", "update_product", `{"sku":"A-1","cost":-2}`, "invalid: cost: -2 breaks a check of the products table", "cost"},
		}
		c.ok("create_product", `{"sku":"B-1","name":"Other"}`)
		tests[1] = struct{ name, tool, args, want, path string }{"unique on update", "update_product", `{"sku":"B-1","name":"Other"}`, "", ""}
		tests[1].args = `{"id":2,"sku":"A-1"}`
		tests[1].want, tests[1].path = `conflict: a product with sku "A-1" exists`, "sku"
		for _, tt := range tests {
			r := c.call(tt.tool, tt.args)
			if !r.IsError || r.text() != tt.want {
				t.Errorf("%s: %s(%s) = %q; want %q", tt.name, tt.tool, tt.args, r.text(), tt.want)
				continue
			}
			if d := cmp.Diff([]string{tt.path}, validationErrors(t, r)); d != "" {
				t.Errorf("%s: validationErrors paths (-want +got):\n%s", tt.name, d)
			}
		}
		// Nothing half written: the rows are as they were.
		if n := count(t, db, "products", ""); n != 2 {
			t.Errorf("%d products; want 2", n)
		}
		p := record(t, c.ok("get_product", `{"id":1}`))
		if p["cost"] != 0.0 || p["sku"] != "A-1" {
			t.Errorf("product 1 changed by refused writes: %v", p)
		}
		if n := count(t, db, "categories", ""); n != 1 {
			t.Errorf("%d categories; want 1", n)
		}
	})
}

func tenantScope() *entity.Scope {
	return &entity.Scope{Field: "tenant", Value: func(_ context.Context, p *ferry.Principal) (any, error) {
		if p == nil {
			return nil, ferry.Forbidden("products belong to tenants: sign in")
		}
		return p.Claims["tenant"], nil
	}}
}

func TestTenantScope(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, &entity.Options{Scope: tenantScope()})
		a, b := *c, *c
		a.tenant, b.tenant = "a", "b"
		pa := record(t, a.ok("create_product", `{"sku":"A-1","name":"a's"}`))
		if pa["tenant"] != "a" {
			t.Errorf("tenant = %v; want a, forced by the scope", pa["tenant"])
		}
		b.ok("create_product", `{"sku":"B-1","name":"b's","tenant":"b"}`)
		if got := b.refused("create_product", `{"sku":"B-2","name":"x","tenant":"a"}`); got != `forbidden: tenant: is set for this caller and cannot be "a"` {
			t.Errorf("create in another tenant = %q", got)
		}
		for _, call := range []struct{ tool, args string }{
			{"get_product", `{"id":1}`},
			{"get_product", `{"sku":"A-1"}`},
			{"update_product", `{"id":1,"name":"stolen"}`},
			{"delete_product", `{"id":1}`},
		} {
			if got := b.refused(call.tool, call.args); got[:10] != "not-found:" {
				t.Errorf("b %s(%s) = %q; want not-found", call.tool, call.args, got)
			}
		}
		if got := a.refused("update_product", `{"id":1,"tenant":"b"}`); got != "forbidden: tenant: cannot change: it is set for this caller" {
			t.Errorf("moving a row out of scope = %q", got)
		}
		var page struct {
			Data   []map[string]any `json:"data"`
			Paging struct {
				TotalCount int `json:"totalCount"`
			} `json:"paging"`
		}
		if err := json.Unmarshal(b.ok("list_products", `{}`), &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Data) != 1 || page.Data[0]["sku"] != "B-1" || page.Paging.TotalCount != 1 {
			t.Errorf("b's list = %+v; want only B-1", page)
		}
		anon := *c
		if got := anon.refused("list_products", `{}`); got != "forbidden: products belong to tenants: sign in" {
			t.Errorf("anonymous list = %q", got)
		}
		if n := count(t, db, "products", "tenant = 'a' AND name = 'a''s'"); n != 1 {
			t.Errorf("a's product changed by b")
		}
	})
}

// proxy forwards TCP connections to a database server until stopped;
// stop closes its listener and every connection it forwards, as a
// database server that goes down does.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Go(func() { _, _ = io.Copy(up, c); _ = up.Close() })
			p.wg.Go(func() { _, _ = io.Copy(c, up); _ = c.Close() })
		}
	})
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) stop() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
}

// A database that stops answering after start-up (the server down, the
// network cut) makes the calls refused as unavailable, saying to try
// again later, rather than failed with an error the model cannot act on:
// on pooled connections the server dropped, and on new ones it refuses.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	for _, e := range []struct {
		name, driver, dsn, target string
		engine                    entity.Engine
		open                      func(testing.TB) *sql.DB
	}{
		{"postgres", "pgx", "postgres://root@%s/test?sslmode=disable", "127.0.0.1:5432", entity.PostgreSQL, dbtest.Postgres},
		{"mysql", "mysql", "root@tcp(%s)/test", "127.0.0.1:3306", entity.MySQL, dbtest.MySQL},
	} {
		t.Run(e.name, func(t *testing.T) {
			e.open(t).Close() // skips (or fails with CI=1) when the server is missing
			direct, err := sql.Open(e.driver, strings.Replace(e.dsn, "%s", e.target, 1))
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			table := dbtest.Name("unreach_")
			if _, err := direct.Exec("CREATE TABLE " + table + " (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL)"); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if _, err := direct.Exec("DROP TABLE " + table); err != nil {
					t.Errorf("drop %s: %v", table, err)
				}
			}()
			p := newProxy(t, e.target)
			db, err := sql.Open(e.driver, strings.Replace(e.dsn, "%s", p.addr(), 1))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			c := unreachableShop(t, db, e.engine, table)
			c.ok("aggregate_categories", `{"aggregates":["count"]}`)
			p.stop()
			for _, call := range []struct{ tool, args string }{
				{"aggregate_categories", `{"aggregates":["count"]}`}, // a pooled connection, dropped
				{"list_categories", `{}`},                            // a new one, refused
				{"get_category", `{"id":1}`},
			} {
				if msg := c.refused(call.tool, call.args); !strings.HasPrefix(msg, "unavailable: ") || !strings.Contains(msg, "try again later") {
					t.Errorf("%s with the database down: %q; want unavailable, try again later", call.tool, msg)
				}
			}
		})
	}
}

// unreachableShop serves table as categories.
func unreachableShop(t *testing.T, db *sql.DB, engine entity.Engine, table string) *client {
	t.Helper()
	srv := quiet()
	set, err := entity.NewSet(srv, db, &entity.SetOptions{Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	type category struct {
		ID   int64  `json:"id" entity:"key"`
		Name string `json:"name" entity:"filter,sort,aggregate"`
	}
	if _, err := entity.Add[category](set, &entity.Options{Table: table}); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return serve(t, srv)
}
