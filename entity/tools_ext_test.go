package entity_test

import (
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
	mcpclient "github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// record decodes {"data": {...}}.
func record(t testing.TB, raw json.RawMessage) map[string]any {
	t.Helper()
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Data == nil {
		t.Fatalf("%s: not a record: %v", raw, err)
	}
	return out.Data
}

func TestCRUD(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		cat := record(t, c.ok("create_category", `{"name":"Tools"}`))
		if cat["id"] != 1.0 || cat["name"] != "Tools" {
			t.Fatalf("create_category = %v", cat)
		}
		p := record(t, c.ok("create_product", `{"sku":"A-1","name":"Hammer","cost":12.5,"stock":3,"category_id":1,"created_at":"2026-01-02T03:04:05.123456Z"}`))
		want := map[string]any{"id": 1.0, "sku": "A-1", "name": "Hammer", "cost": 12.5, "stock": 3.0, "active": true,
			"category_id": 1.0, "tenant": "", "created_at": "2026-01-02T03:04:05.123456Z", "created_by": nil}
		if d := cmp.Diff(want, p); d != "" {
			t.Fatalf("create_product (-want +got):\n%s", d)
		}
		for _, args := range []string{`{"id":1}`, `{"sku":"A-1"}`} {
			if d := cmp.Diff(want, record(t, c.ok("get_product", args))); d != "" {
				t.Errorf("get_product(%s) (-want +got):\n%s", args, d)
			}
		}
		// Partial update: only name changes, by natural key.
		up := record(t, c.ok("update_product", `{"sku":"A-1","name":"Claw hammer"}`))
		want["name"] = "Claw hammer"
		if d := cmp.Diff(want, up); d != "" {
			t.Errorf("update_product (-want +got):\n%s", d)
		}
		// By key, the natural key may change; null clears a nullable field.
		up = record(t, c.ok("update_product", `{"id":1,"sku":"B-2","stock":null}`))
		want["sku"], want["stock"] = "B-2", nil
		if d := cmp.Diff(want, up); d != "" {
			t.Errorf("update_product by id (-want +got):\n%s", d)
		}
		if got := c.refused("get_product", `{"id":7}`); got != "not-found: no product with id 7" {
			t.Errorf("get_product(7) = %q", got)
		}
		if got := c.refused("get_product", `{"sku":"A-1"}`); got != `not-found: no product with sku "A-1"` {
			t.Errorf("get_product(A-1) = %q", got)
		}
		if got := c.refused("get_product", `{"sku":"b-2"}`); !strings.HasPrefix(got, "not-found:") {
			t.Errorf("get_product(b-2) = %q; want not-found (keys match case-sensitively)", got)
		}
		if got := c.refused("get_product", `{}`); got != "invalid: Name the product by id or sku." {
			t.Errorf("get_product({}) = %q", got)
		}
		if got := c.refused("update_product", `{"id":1}`); got != "invalid: give at least one field to change beside id" {
			t.Errorf("update_product without fields = %q", got)
		}
		del := record(t, c.ok("delete_product", `{"sku":"B-2"}`))
		if d := cmp.Diff(want, del); d != "" {
			t.Errorf("delete_product (-want +got):\n%s", d)
		}
		if n := count(t, db, "products", ""); n != 0 {
			t.Errorf("%d products after delete", n)
		}
		if got := c.refused("delete_product", `{"id":1}`); got != "not-found: no product with id 1" {
			t.Errorf("second delete = %q", got)
		}
	})
}

// Options.TaskSupport and Query.TaskSupport make an entity's tools and a
// query's tool run as tasks for a client that speaks tasks: the list and
// the query answer from their tasks as they do plainly.
func TestEntityToolsRunAsTasks(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler),
			Tasks: &ferry.TaskOptions{PollInterval: time.Millisecond}})
		c, set := shopOn(t, srv, db, nil, &entity.Options{TaskSupport: ferry.TaskOptional})
		if err := set.AddQuery(t.Context(), &entity.Query{Name: "skus", Description: "Lists the SKUs.", Mode: entity.Many,
			SQL: "SELECT sku FROM products", TaskSupport: ferry.TaskRequired}); err != nil {
			t.Fatal(err)
		}
		c.ok("create_product", `{"sku":"TEA-1","name":"Tea","cost":2}`)
		mc, err := mcpclient.DialHTTP(t.Context(), c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer mc.Close()
		for _, tool := range []string{"list_products", "skus"} {
			var task string
			res, err := mc.CallToolAsTask(t.Context(), tool, map[string]any{}, func(tk *mcpclient.Task) { task = tk.ID })
			if err != nil || res.IsError || task == "" || !strings.Contains(string(res.StructuredContent), "TEA-1") {
				t.Errorf("%s as a task: %+v, %v (task %q)", tool, res, err, task)
			}
		}
		if res, err := mc.CallTool(t.Context(), "list_products", nil); err != nil || !strings.Contains(string(res.StructuredContent), "TEA-1") {
			t.Errorf("list_products plainly: %+v, %v", res, err)
		}
	})
}

// TestToolGroups holds the entity layer's groups: an entity's tools are
// in the group of its plural name, unless Options.Groups says otherwise.
func TestToolGroups(t *testing.T) {
	t.Parallel()
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	srv := quiet()
	shopOn(t, srv, db, nil, &entity.Options{Groups: []string{"catalog"}})
	got := map[string][]string{}
	for _, tl := range srv.Catalog().Tools() {
		got[tl.Name] = tl.Groups
	}
	for name, want := range map[string][]string{"get_category": {"categories"}, "list_categories": {"categories"},
		"get_product": {"catalog"}, "delete_product": {"catalog"}} {
		if diff := cmp.Diff(want, got[name]); diff != "" {
			t.Errorf("%s's groups (-want +got):\n%s", name, diff)
		}
	}
	if gs := srv.Groups(); len(gs) != 2 || gs[0].Name != "catalog" || gs[1].Name != "categories" {
		t.Errorf("groups: %+v", gs)
	}
}
