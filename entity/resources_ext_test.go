package entity_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	mcpclient "github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
)

func TestResources(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	c, set := shop(t, db, nil, nil)
	read := func(uri string) string {
		raw, perr := c.rpc("resources/read", uri, `{"uri":"`+uri+`",`+meta+`}`)
		if perr != nil {
			t.Fatalf("read %s: %s", uri, perr.Message)
		}
		var out struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(raw, &out); err != nil || len(out.Contents) != 1 {
			t.Fatalf("read %s: %s", uri, raw)
		}
		return out.Contents[0].Text
	}
	var all []struct {
		Name  string   `json:"name"`
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal([]byte(read("shop://entities")), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Name != "category" || all[1].Name != "product" || len(all[1].Tools) != 5 {
		t.Errorf("entities = %+v", all)
	}
	one := read("shop://entities/product")
	for _, s := range []string{`"key": "id"`, `"naturalKey": "sku"`, `"created_at"`, `"sortable"`} {
		if !strings.Contains(one, s) {
			t.Errorf("entities/product lacks %s:\n%s", s, one)
		}
	}
	var rels []entity.Relationship
	if err := json.Unmarshal([]byte(read("shop://relationships")), &rels); err != nil {
		t.Fatal(err)
	}
	want := []entity.Relationship{{From: "product", FromField: "category_id", To: "category", ToField: "id"}}
	if d := cmp.Diff(want, rels); d != "" {
		t.Errorf("relationships (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, set.Relationships()); d != "" {
		t.Errorf("Set.Relationships (-want +got):\n%s", d)
	}
	raw, perr := c.rpc("completion/complete", "", `{"ref":{"type":"ref/resource","uri":"shop://entities/{name}"},"argument":{"name":"name","value":"pr"},`+meta+`}`)
	if perr != nil {
		t.Fatalf("complete: %s", perr.Message)
	}
	if !strings.Contains(string(raw), `"values":["product"]`) {
		t.Errorf("completion = %s", raw)
	}
	if _, perr := c.rpc("resources/read", "shop://entities/nope", `{"uri":"shop://entities/nope",`+meta+`}`); perr == nil {
		t.Error("reading an unknown entity succeeded")
	}
}

// An entity whose table or column the database lacks fails the server's
// start-up check, naming the entity, rather than every call of its tools.
func TestMissingTableOrColumnFailsStartUp(t *testing.T) {
	db := dbtest.SQLite(t)
	if _, err := db.Exec(`CREATE TABLE categories (id INTEGER PRIMARY KEY, label TEXT)`); err != nil {
		t.Fatal(err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, register := range []func(*entity.Set, *entity.Options) (*entity.Entity, error){
		entity.Add[Category], entity.Add[Product],
	} {
		if _, err := register(set, nil); err != nil {
			t.Fatal(err)
		}
	}
	err = srv.Check()
	for _, want := range []string{`entity "category" (table "categories")`, "no such column: t.name",
		`entity "product" (table "products")`, "no such table: products"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check() = %v, want it to say %q", err, want)
		}
	}
}

// described is an entity as the entities resources describe it.
type described struct {
	Name       string   `json:"name"`
	ReadOnly   bool     `json:"readOnly"`
	Tools      []string `json:"tools"`
	Filterable []string `json:"filterable"`
	Sortable   []string `json:"sortable"`
	Schema     any      `json:"schema"`
}

// view is what one caller learns of the entities from the resources.
type view struct {
	Entities      []described
	Relationships []entity.Relationship
	Completions   []string
	Readable      []string // the entities entities/{name} describes
}

// viewOf reads every entity resource as c's caller.
func viewOf(t *testing.T, c *ferrytest.Client) view {
	t.Helper()
	ctx := t.Context()
	var v view
	readJSON := func(uri string, out any) bool {
		res, err := c.Raw().ReadResource(ctx, uri)
		if err != nil {
			// A hidden entity reads as one that does not exist.
			_, unknown := c.Raw().ReadResource(ctx, "shop://entities/nope")
			if unknown == nil || err.Error() != strings.ReplaceAll(unknown.Error(), "shop://entities/nope", uri) {
				t.Errorf("reading %s: %v, want the answer of an unknown entity (%v)", uri, err, unknown)
			}
			return false
		}
		if err := json.Unmarshal([]byte(res.Contents[0].Text), out); err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		return true
	}
	readJSON("shop://entities", &v.Entities)
	readJSON("shop://relationships", &v.Relationships)
	v.Completions = c.Complete(ctx, &mcpclient.CompleteRequest{RefType: "ref/resource", URI: "shop://entities/{name}", Argument: "name"})
	for _, name := range []string{"category", "product"} {
		var d described
		if readJSON("shop://entities/"+name, &d) {
			v.Readable = append(v.Readable, name)
			if i := slices.IndexFunc(v.Entities, func(e described) bool { return e.Name == name }); i < 0 || !cmp.Equal(v.Entities[i], d) {
				t.Errorf("entities/%s = %+v, unlike its entry in entities", name, d)
			}
		}
	}
	return v
}

// The entity resources describe to a caller only the entities, tools and
// relations he may use: an entity whose tools are all hidden from him
// (by ServerOptions.Visible or a read-only server) is not listed, not
// read, not completed and in no relation; one he sees in part lists only
// the tools he may call, and the list tool's fields only with it.
func TestResourcesShowOnlyWhatTheCallerMayUse(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	shown := map[string][]string{ // role: the tools it sees, besides the admin's every tool
		"clerk":   {"list_products"},
		"auditor": {"get_product"},
	}
	visible := func(ctx context.Context, tool ferry.ToolInfo) bool {
		p, _ := ferry.PrincipalFromContext(ctx)
		if p.HasAnyRole([]string{"admin"}) {
			return true
		}
		for role, tools := range shown {
			if p.HasAnyRole([]string{role}) && slices.Contains(tools, tool.Name) {
				return true
			}
		}
		return false
	}
	newServer := func(readOnly bool) *ferry.Server {
		srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Visible: visible, ReadOnly: readOnly})
		set, err := entity.NewSet(srv, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := entity.Add[Category](set, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := entity.Add[Product](set, nil); err != nil {
			t.Fatal(err)
		}
		set.AddResources("shop")
		return srv
	}
	as := func(srv *ferry.Server, role string) view {
		return viewOf(t, ferrytest.NewClient(t, srv, &ferrytest.Options{Principal: &ferry.Principal{Subject: role, Roles: []string{role}}}))
	}
	names := func(v view) (out []string) {
		for _, e := range v.Entities {
			out = append(out, e.Name)
		}
		return out
	}

	srv := newServer(false)
	admin := as(srv, "admin")
	if got := names(admin); !cmp.Equal(got, []string{"category", "product"}) || len(admin.Entities[1].Tools) != 5 || len(admin.Relationships) != 1 ||
		!cmp.Equal(admin.Completions, []string{"category", "product"}) || !cmp.Equal(admin.Readable, []string{"category", "product"}) {
		t.Errorf("the admin sees %+v, want every entity, tool and relation", admin)
	}

	clerk := as(srv, "clerk")
	want := view{
		Entities:      []described{{Name: "product", ReadOnly: true, Tools: []string{"list_products"}, Filterable: admin.Entities[1].Filterable, Sortable: admin.Entities[1].Sortable, Schema: admin.Entities[1].Schema}},
		Relationships: []entity.Relationship{},
		Completions:   []string{"product"},
		Readable:      []string{"product"},
	}
	if d := cmp.Diff(want, clerk); d != "" {
		t.Errorf("the clerk, who may only list products, sees (-want +got):\n%s", d)
	}

	auditor := as(srv, "auditor")
	want.Entities[0].Tools, want.Entities[0].Filterable, want.Entities[0].Sortable = []string{"get_product"}, []string{}, []string{}
	if d := cmp.Diff(want, auditor); d != "" {
		t.Errorf("the auditor, who may only get a product, sees (-want +got):\n%s", d)
	}

	if nobody := as(srv, "guest"); len(nobody.Entities) != 0 || len(nobody.Relationships) != 0 || len(nobody.Completions) != 0 || len(nobody.Readable) != 0 {
		t.Errorf("a caller who may use no tool sees %+v", nobody)
	}

	readOnly := as(newServer(true), "admin")
	for _, e := range readOnly.Entities {
		if !e.ReadOnly || slices.ContainsFunc(e.Tools, func(n string) bool { return !strings.HasPrefix(n, "get_") && !strings.HasPrefix(n, "list_") }) {
			t.Errorf("on a read-only server, %s is described as %+v", e.Name, e)
		}
	}
}
