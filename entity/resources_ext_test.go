package entity_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
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
		entity.Register[Category], entity.Register[Product],
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
