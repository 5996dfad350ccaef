package entity_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// TestIntrospectedTools serves a database with no Go types: the tools
// come from Introspect's model.
func TestIntrospectedTools(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		if _, err := db.Exec(`CREATE VIEW cheap_products AS SELECT id, sku, name FROM products WHERE cost < 5`); err != nil {
			t.Fatal(err)
		}
		srv := quiet()
		set, err := entity.NewSet(srv, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		es, err := entity.Introspect(t.Context(), db, set.Engine(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if _, err := set.Add(e, nil); err != nil {
				t.Fatal(err)
			}
		}
		c := serve(t, srv)
		tools := c.tools()
		for _, name := range []string{"create_category", "list_products", "get_product", "update_product", "delete_product", "list_cheap_products"} {
			if _, ok := tools[name]; !ok {
				t.Errorf("no tool %s", name)
			}
		}
		for _, name := range []string{"create_cheap_product", "update_cheap_product", "delete_cheap_product"} {
			if _, ok := tools[name]; ok {
				t.Errorf("a view got %s", name)
			}
		}
		c.ok("create_category", `{"name":"Tools"}`)
		p := record(t, c.ok("create_product", `{"sku":"A-1","name":"Hammer","cost":"2.50","category_id":1,"created_at":"2026-05-06T07:08:09Z"}`))
		if p["cost"] != 2.5 || p["active"] != true || p["created_at"] != "2026-05-06T07:08:09Z" {
			t.Errorf("created = %v", p)
		}
		record(t, c.ok("update_product", `{"sku":"A-1","active":false,"stock":4}`))
		got := record(t, c.ok("get_product", `{"id":1}`))
		if got["active"] != false || got["stock"] != 4.0 || got["name"] != "Hammer" {
			t.Errorf("after update = %v", got)
		}
		v := listOf(t, c.ok("list_cheap_products", `{"filter":"name.startsWith(\"Ham\")"}`))
		if len(v.Data) != 1 || v.Data[0]["sku"] != "A-1" {
			t.Errorf("view list = %+v", v)
		}
		if got := c.refused("create_product", `{"sku":"A-1","name":"again"}`); !strings.HasPrefix(got, `conflict: a product with sku "A-1" exists`) {
			t.Errorf("duplicate = %q", got)
		}
	})
}

// A PostgreSQL table named like a system relation is served from its own
// schema: pg_catalog comes before the search_path, so unqualified SQL
// would read the server's settings.
func TestIntrospectedShadowsNoSystemRelation(t *testing.T) {
	db := dbtest.Postgres(t)
	if _, err := db.Exec(`CREATE TABLE pg_settings (id int PRIMARY KEY, name text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := db.QueryRow(`SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO "` + schema + `".pg_settings VALUES (1, 'mine')`); err != nil {
		t.Fatal(err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, db, &entity.SetOptions{Engine: entity.PostgreSQL, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	es, err := entity.Introspect(t.Context(), db, entity.PostgreSQL, &entity.IntrospectOptions{Tables: []string{"pg_settings"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if _, err := set.Add(e, nil); err != nil {
			t.Fatal(err)
		}
	}
	c := serve(t, srv)
	v := listOf(t, c.ok("list_pg_settings", `{}`))
	if len(v.Data) != 1 || v.Data[0]["name"] != "mine" {
		t.Errorf("list_pg_settings = %d rows; want the table's one row", len(v.Data))
	}
}

// TestPostgresEnumsAndMariaDBCharsets: a PostgreSQL enum key given a label
// it lacks is not found, and an enum orders; a latin1 key given an emoji
// on MariaDB is refused, not a masked failure.
func TestPostgresEnumsAndMariaDBCharsets(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		db := dbtest.Postgres(t)
		for _, q := range []string{
			`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`,
			`CREATE TABLE moods (name mood PRIMARY KEY, note TEXT NOT NULL)`,
			`INSERT INTO moods VALUES ('ok', 'fine'), ('sad', 'meh')`,
		} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		srv := quiet()
		set, err := entity.NewSet(srv, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		es, err := entity.Introspect(t.Context(), db, entity.PostgreSQL, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := set.Add(es[0], nil); err != nil {
			t.Fatal(err)
		}
		c := serve(t, srv)
		// The schema lists the labels, so an unknown one never reaches
		// the database; a known one that no row has is not found.
		if got := c.refused("get_mood", `{"name":"angry"}`); !strings.Contains(got, `must be one of: "sad", "ok", "happy"`) {
			t.Errorf("unknown label = %q", got)
		}
		if got := c.refused("get_mood", `{"name":"happy"}`); got != `not-found: no mood with name "happy"` {
			t.Errorf("absent label = %q", got)
		}
		p := listOf(t, c.ok("list_moods", `{"orderBy":"name desc"}`))
		if len(p.Data) != 2 || p.Data[0]["name"] != "sad" {
			t.Errorf("moods by name desc = %v", p.Data)
		}
	})
	t.Run("mysql", func(t *testing.T) {
		db := dbtest.MySQL(t)
		if _, err := db.Exec(`CREATE TABLE tags (code VARCHAR(20) CHARACTER SET latin1 PRIMARY KEY, label TEXT NOT NULL)`); err != nil {
			t.Fatal(err)
		}
		srv := quiet()
		set, err := entity.NewSet(srv, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := entity.Add[Tag](set, nil); err != nil {
			t.Fatal(err)
		}
		c := serve(t, srv)
		got := c.refused("get_tag", `{"code":"🙂"}`)
		if got != `not-found: no tag with code "🙂"` && got[:8] != "invalid:" {
			t.Errorf("emoji on a latin1 key = %q", got)
		}
	})
}

// A table with a column left out of its fields (excluded, or of a type
// not served) that is NOT NULL with no default cannot be inserted into:
// Introspect says why in CreateNote and the entity gets no create tool,
// instead of one that refuses every call as "a required field is
// missing". Update, delete and the reads stay; a left-out column with a
// default, or nullable, keeps create.
func TestRequiredLeftOutColumnDropsCreate(t *testing.T) {
	blob := map[string]string{"sqlite": "BLOB", "postgres": "bytea", "mysql": "BLOB"}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db,
				`CREATE TABLE i21check_req (id INTEGER PRIMARY KEY, name TEXT, picture `+blob[e.Name]+` NOT NULL)`,
				`CREATE TABLE i21check_pin (id INTEGER PRIMARY KEY, name TEXT, pin VARCHAR(10) NOT NULL, tag VARCHAR(10) NOT NULL DEFAULT 'x')`,
				`CREATE TABLE i21check_opt (id INTEGER PRIMARY KEY, name TEXT, note VARCHAR(10), tag VARCHAR(10) NOT NULL DEFAULT 'x')`,
			)
			srv := quiet()
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			es, err := entity.Introspect(t.Context(), db, set.Engine(), &entity.IntrospectOptions{
				Tables:         []string{"i21check_req", "i21check_pin", "i21check_opt"},
				ExcludeColumns: []string{"i21check_pin.pin", "tag", "i21check_opt.note"},
			})
			if err != nil {
				t.Fatal(err)
			}
			notes := map[string]string{}
			for _, en := range es {
				notes[en.Table] = en.CreateNote
				if _, err := set.Add(en, nil); err != nil {
					t.Fatal(err)
				}
			}
			if n := notes["i21check_req"]; !strings.HasPrefix(n, "its column picture (") || !strings.HasSuffix(n, ") is required (NOT NULL, no default) and not served") {
				t.Errorf("i21check_req: CreateNote %q", n)
			}
			if n := notes["i21check_pin"]; !strings.HasPrefix(n, "its column pin (") || strings.Contains(n, "tag") {
				t.Errorf("i21check_pin: CreateNote %q; want pin only (tag has a default)", n)
			}
			if n := notes["i21check_opt"]; n != "" {
				t.Errorf("i21check_opt: CreateNote %q; want none", n)
			}
			c := serve(t, srv)
			tools := toolsOf(t, c)
			for _, name := range []string{"create_i21check_req", "create_i21check_pin"} {
				if _, ok := tools[name]; ok {
					t.Errorf("%s is served; no call could succeed", name)
				}
			}
			for _, name := range []string{"create_i21check_opt", "update_i21check_pin", "delete_i21check_pin", "get_i21check_req", "update_i21check_req"} {
				if _, ok := tools[name]; !ok {
					t.Errorf("%s is not served", name)
				}
			}
			args := `{"id":1,"name":"a"}`
			if e.Name == "sqlite" { // INTEGER PRIMARY KEY numbers itself
				args = `{"name":"a"}`
			}
			c.ok("create_i21check_opt", args)
		})
	}
}
