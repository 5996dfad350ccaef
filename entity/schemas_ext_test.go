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
	"github.com/google/go-cmp/cmp"
)

type toolEntry struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	} `json:"annotations"`
}

func toolsOf(t *testing.T, c *client) map[string]toolEntry {
	out := map[string]toolEntry{}
	for name, raw := range c.tools() {
		var e toolEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		out[name] = e
	}
	return out
}

func hints(e toolEntry) string {
	b := func(p *bool) string {
		switch {
		case p == nil:
			return "-"
		case *p:
			return "y"
		}
		return "n"
	}
	a := e.Annotations
	return "ro=" + b(a.ReadOnly) + " destr=" + b(a.Destructive) + " idem=" + b(a.Idempotent) + " open=" + b(a.OpenWorld)
}

func TestToolsHintsAndSchemas(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := shop(t, db, nil, nil)
	tools := toolsOf(t, c)
	want := map[string]string{
		"get_product":     "Get product: ro=y destr=n idem=y open=n",
		"list_products":   "List products: ro=y destr=n idem=y open=n",
		"create_product":  "Create product: ro=n destr=n idem=n open=n",
		"update_product":  "Update product: ro=n destr=n idem=y open=n",
		"delete_product":  "Delete product: ro=n destr=y idem=n open=n",
		"get_category":    "Get category: ro=y destr=n idem=y open=n",
		"list_categories": "List categories: ro=y destr=n idem=y open=n",
		"create_category": "Create category: ro=n destr=n idem=n open=n",
		"update_category": "Update category: ro=n destr=n idem=y open=n",
		"delete_category": "Delete category: ro=n destr=y idem=n open=n",
	}
	got := map[string]string{}
	for name, e := range tools {
		got[name] = e.Title + ": " + hints(e)
		if len(e.OutputSchema) == 0 {
			t.Errorf("%s has no output schema", name)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tools and hints (-want +got):\n%s", d)
	}
	var list struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(tools["list_products"].InputSchema, &list)
	var props []string
	for p := range list.Properties {
		props = append(props, p)
	}
	slices.Sort(props)
	if d := cmp.Diff([]string{"expand", "filter", "orderBy", "skip", "top"}, props); d != "" {
		t.Errorf("list_products arguments without a Searcher (-want +got):\n%s", d)
	}
	var create struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(tools["create_product"].InputSchema, &create)
	if d := cmp.Diff([]string{"sku", "name"}, create.Required); d != "" {
		t.Errorf("create_product required (-want +got):\n%s", d)
	}
	if _, ok := create.Properties["id"]; ok {
		t.Error("create_product takes the generated id")
	}
	if s := string(create.Properties["sku"]); !strings.Contains(s, `"pattern"`) || !strings.Contains(s, "stock keeping unit") {
		t.Errorf("sku's schema lost its tags: %s", s)
	}
	// The schema's validation runs before the handler: a sku that breaks
	// the pattern is refused with its path.
	if got := c.refused("create_product", `{"sku":"not a sku","name":"x"}`); !strings.Contains(got, "sku: must match the pattern") {
		t.Errorf("bad sku = %q", got)
	}
	if got := c.refused("create_product", `{"sku":"A-1","name":""}`); !strings.Contains(got, "name: must be at least 1 character") {
		t.Errorf("empty name = %q", got)
	}
}

func TestReadOnlyAndExcluded(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := shop(t, db, &entity.SetOptions{ReadOnly: true}, nil)
	var names []string
	for n := range c.tools() {
		names = append(names, n)
	}
	slices.Sort(names)
	if d := cmp.Diff([]string{"get_category", "get_product", "list_categories", "list_products"}, names); d != "" {
		t.Errorf("read-only set's tools (-want +got):\n%s", d)
	}
	if _, perr := c.rpc("tools/call", "create_product", `{"name":"create_product","arguments":{"sku":"A-1","name":"x"},`+meta+`}`); perr == nil {
		t.Error("create_product callable on a read-only set")
	}
	// A server that hides every tool not marked read-only (as the core's
	// read-only setting does) leaves the read tools only.
	srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler),
		Visible: func(_ context.Context, ti ferry.ToolInfo) bool { return ti.ReadOnly }})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Product](set, nil); err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for n := range serve(t, srv).tools() {
		names = append(names, n)
	}
	slices.Sort(names)
	if d := cmp.Diff([]string{"get_product", "list_products"}, names); d != "" {
		t.Errorf("read-only server's tools (-want +got):\n%s", d)
	}
	c2, _ := shop(t, db, nil, &entity.Options{Exclude: []entity.Op{entity.Delete}, ToolNames: map[entity.Op]string{entity.List: "find_products"}})
	tools := c2.tools()
	if _, ok := tools["delete_product"]; ok {
		t.Error("delete_product listed though excluded")
	}
	if _, ok := tools["find_products"]; !ok {
		t.Error("list_products not renamed find_products")
	}
	if _, ok := tools["update_product"]; !ok {
		t.Error("update_product missing")
	}
}

func TestTimeout(t *testing.T) {
	slow := map[string]string{
		"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
		"postgres": "SELECT pg_sleep(5)",
		"mysql":    "SELECT SLEEP(5)",
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		name := t.Name()[len("TestTimeout/"):]
		var slowed atomic.Bool
		opts := &entity.Options{Hooks: entity.Hooks{BeforeRead: func(ctx context.Context, r *entity.Read) error {
			if slowed.Swap(true) {
				return nil
			}
			var v any
			return r.Tx.QueryRowContext(ctx, slow[name]).Scan(&v)
		}}}
		c, _ := shop(t, db, &entity.SetOptions{Timeout: 200 * time.Millisecond}, opts)
		start := time.Now()
		got := c.refused("list_products", `{}`)
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("the call took %s", el)
		}
		if !strings.HasPrefix(got, "unavailable: the database did not answer within 200ms") {
			t.Errorf("slow list = %q", got)
		}
		// The pool is usable afterwards. Under a loaded machine a call
		// may itself outlast the 200ms bound, so one of a few must pass.
		var last string
		for range 10 {
			r := c.call("list_products", `{}`)
			if !r.IsError {
				last = ""
				break
			}
			last = r.text()
		}
		if last != "" {
			t.Errorf("list_products after the timeout, 10 tries: %s", last)
		}
	})
}

// Every property of create's and update's arguments is described, those
// of fields without a description of their own by what null and leaving
// them out do, so that a table served with no config passes lint's
// property-description-missing.
func TestWriteArgumentsAreDescribed(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := shop(t, db, nil, nil)
	tools := toolsOf(t, c)
	descriptions := func(tool string) map[string]string {
		var in struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tools[tool].InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for name, p := range in.Properties {
			out[name] = p.Description
		}
		return out
	}
	for _, tool := range []string{"create_product", "update_product", "create_category", "update_category"} {
		for name, d := range descriptions(tool) {
			if d == "" {
				t.Errorf("%s: property %s has no description", tool, name)
			}
		}
	}
	want := map[string]string{
		"create_product name":       "The product's name.",
		"create_product stock":      "The product's stock, or null; left out, null.",
		"create_product cost":       "The product's cost; left out, the database's default.",
		"create_product sku":        "The stock keeping unit.",
		"update_product name":       "The product's name; left out, it stays as it is.",
		"update_product created_by": "The product's created_by, or null to clear it; left out, it stays as it is.",
	}
	for key, w := range want {
		tool, prop, _ := strings.Cut(key, " ")
		if got := descriptions(tool)[prop]; got != w {
			t.Errorf("%s: %q, want %q", key, got, w)
		}
	}
}
