package entity_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// An entity's own Timeout replaces the Set's: a statement that outlives
// it is refused as unavailable, naming it, on every engine, long before
// the Set's timeout or the server's deadline; the entity's tools get a
// deadline a little beyond it, and the other entities keep the server's.
func TestEntityTimeoutReplacesTheSets(t *testing.T) {
	slow := map[string]string{
		"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
		"postgres": "SELECT pg_sleep(20)",
		"mysql":    "SELECT SLEEP(20)",
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		name := t.Name()[len("TestEntityTimeoutReplacesTheSets/"):]
		var slowed atomic.Bool
		opts := &entity.Options{Timeout: 200 * time.Millisecond, Hooks: entity.Hooks{BeforeRead: func(ctx context.Context, r *entity.Read) error {
			if slowed.Swap(true) {
				return nil
			}
			var v any
			return r.Tx.QueryRowContext(ctx, slow[name]).Scan(&v)
		}}}
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: time.Hour}})
		c, _ := shopOn(t, srv, db, &entity.SetOptions{Timeout: 30 * time.Second}, opts)
		start := time.Now()
		got := c.refused("list_products", `{}`)
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("the call took %s", el)
		}
		if !strings.HasPrefix(got, "unavailable: the database did not answer within 200ms") {
			t.Errorf("slow list = %q", got)
		}
		c.ok("list_products", `{}`)
		want := map[string]time.Duration{"list_products": 200*time.Millisecond + 40*time.Millisecond + time.Second, "list_categories": time.Hour}
		for _, info := range srv.Catalog().Tools() {
			if d, ok := want[info.Name]; ok && info.Timeout != d {
				t.Errorf("%s: deadline %v, want %v", info.Name, info.Timeout, d)
			}
		}
	})
}

// An entity whose Timeout is longer than the server's CallTimeout runs
// its calls to the end: its tools' deadline is its own.
func TestEntityTimeoutOutlastsTheServers(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		opts := &entity.Options{Timeout: 30 * time.Second, Hooks: entity.Hooks{BeforeRead: func(ctx context.Context, _ *entity.Read) error {
			select {
			case <-time.After(300 * time.Millisecond): // a hook slower than the server's deadline
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}}
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: 50 * time.Millisecond}})
		c, _ := shopOn(t, srv, db, nil, opts)
		c.ok("list_products", `{}`)
	})
}

// SetOptions.Groups puts every tool, resource and template of the Set
// in its groups, its queries' too, and Options.ToolPrefix comes before
// each of an entity's tool names, a ToolNames one included; the entity
// keeps its name in the resources.
func TestSetGroupsAndToolPrefix(t *testing.T) {
	db := dbtest.SQLite(t)
	execAll(t, db, productDDL["sqlite"]...)
	srv := quiet()
	set, err := entity.NewSet(srv, db, &entity.SetOptions{Groups: []string{"sales"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Category](set, &entity.Options{ToolPrefix: "sales_", ToolNames: map[entity.Op]string{entity.List: "find_categories"}}); err != nil {
		t.Fatal(err)
	}
	qs, err := entity.ParseQueries("q.sql", "-- name: category_count :one\n-- How many categories.\nSELECT COUNT(*) AS n FROM categories\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := set.AddQuery(t.Context(), qs[0]); err != nil {
		t.Fatal(err)
	}
	set.AddResources("sales")
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range srv.Catalog().Tools() {
		names = append(names, tl.Name)
		if len(tl.Groups) != 1 || tl.Groups[0] != "sales" {
			t.Errorf("tool %s: groups %v; want [sales]", tl.Name, tl.Groups)
		}
	}
	want := []string{"category_count", "sales_create_category", "sales_delete_category", "sales_find_categories", "sales_get_category", "sales_update_category"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("tools %v; want %v", names, want)
	}
	gs := srv.Groups()
	if len(gs) != 1 || gs[0].Name != "sales" || gs[0].Tools != len(want) || gs[0].Resources != 2 || gs[0].Templates != 1 {
		t.Errorf("groups %+v; want sales alone, with %d tools, 2 resources and a template", gs, len(want))
	}
	c := serve(t, srv)
	c.ok("sales_find_categories", `{}`)
	raw, perr := c.rpc("resources/read", "sales://entities", `{"uri":"sales://entities",`+meta+`}`)
	if perr != nil {
		t.Fatal(perr.Message)
	}
	var out struct {
		Contents []struct {
			Text string `json:"text"`
		} `json:"contents"`
	}
	var doc []struct {
		Name  string   `json:"name"`
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Contents) != 1 || json.Unmarshal([]byte(out.Contents[0].Text), &doc) != nil {
		t.Fatalf("sales://entities: %s", raw)
	}
	if len(doc) != 1 || doc[0].Name != "category" || !slices.Contains(doc[0].Tools, "sales_get_category") {
		t.Errorf("sales://entities = %+v; want category, with its prefixed tools", doc)
	}
}
