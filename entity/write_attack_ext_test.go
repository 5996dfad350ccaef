package entity_test

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

// keywordDDL is a table whose columns are named as SQL keywords, with a
// quote character in one name, a generated column and a secret column
// the entity leaves out.
var keywordDDL = map[string]string{
	"sqlite": `CREATE TABLE keywords (id INTEGER PRIMARY KEY, "select" TEXT, "from" TEXT, "order" INTEGER,
		"group" TEXT, "a""b" TEXT, secret TEXT DEFAULT 'hunter2',
		doubled INTEGER GENERATED ALWAYS AS ("order" * 2) STORED)`,
	"postgres": `CREATE TABLE keywords (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "select" TEXT, "from" TEXT,
		"order" BIGINT, "group" TEXT, "a""b" TEXT, secret TEXT DEFAULT 'hunter2',
		doubled BIGINT GENERATED ALWAYS AS ("order" * 2) STORED)`,
	"mysql": "CREATE TABLE keywords (id BIGINT AUTO_INCREMENT PRIMARY KEY, `select` VARCHAR(50), `from` VARCHAR(50), " +
		"`order` BIGINT, `group` VARCHAR(50), `a\"b` VARCHAR(50), secret VARCHAR(50) DEFAULT 'hunter2', " +
		"doubled BIGINT AS (`order` * 2) PERSISTENT) ENGINE=InnoDB",
}

// TestAttackKeywordColumnsAndHiddenFields serves an introspected table
// whose columns are SQL keywords, with the secret column excluded: the
// keyword fields work in writes, filters and orderBy; the secret is never
// read, filtered, ordered by or written, and the generated column and
// identity key are never written, whatever the case of the member.
func TestAttackKeywordColumnsAndHiddenFields(t *testing.T) {
	for _, eng := range dbtest.Engines {
		t.Run(eng.Name, func(t *testing.T) {
			db := eng.Open(t)
			if _, err := db.Exec(keywordDDL[eng.Name]); err != nil {
				t.Fatal(err)
			}
			srv := quiet()
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			es, err := entity.Introspect(t.Context(), db, set.Engine(), &entity.IntrospectOptions{
				Tables: []string{"keywords"}, ExcludeColumns: []string{"keywords.secret"}})
			if err != nil || len(es) != 1 {
				t.Fatalf("Introspect = %v, %v", es, err)
			}
			if _, err := set.Add(es[0], nil); err != nil {
				t.Fatal(err)
			}
			set.AddResources("shop")
			c := serve(t, srv)
			for _, uri := range []string{"shop://entities", "shop://entities/keyword", "shop://relationships"} {
				raw, perr := c.rpc("resources/read", uri, `{"uri":"`+uri+`",`+meta+`}`)
				if perr != nil || !strings.Contains(string(raw), "relationships") && !strings.Contains(string(raw), "doubled") || strings.Contains(string(raw), "secret") || strings.Contains(string(raw), "hunter2") {
					t.Errorf("%s = %s %v; want no trace of the excluded column", uri, clip(string(raw), 200), perr)
				}
			}
			tools, _ := c.rpc("tools/list", "", `{`+meta+`}`)
			if strings.Contains(string(tools), "secret") {
				t.Errorf("the tools' schemas name the excluded column")
			}
			quoted := es[0].Fields[5].Name // the a"b column, sanitized
			rec := record(t, c.ok("create_keyword", `{"select":"s1","from":"f1","order":3,"group":"g","`+quoted+`":"q"}`))
			c.ok("create_keyword", `{"select":"s2","from":"f2","order":1}`)
			if _, ok := rec["secret"]; ok || rec["doubled"] != float64(6) {
				t.Errorf("record = %v; want doubled 6 and no secret", rec)
			}
			p := listOf(t, c.ok("list_keywords", `{"filter":"select == \"s1\" && order > 2 && from.startsWith(\"f\") && group != null","orderBy":"order desc, select"}`))
			if len(p.Data) != 1 || p.Data[0]["select"] != "s1" {
				t.Errorf("keyword filter = %v", p.Data)
			}
			p = listOf(t, c.ok("list_keywords", `{"orderBy":"order, from desc, group","filter":"doubled >= 2"}`))
			if got := []any{p.Data[0]["select"], p.Data[1]["select"]}; !cmp.Equal(got, []any{"s2", "s1"}) {
				t.Errorf("order by keywords = %v", got)
			}
			for _, call := range []struct{ tool, args, prefix string }{
				{"create_keyword", `{"select":"x","secret":"mine"}`, "invalid"},
				{"create_keyword", `{"select":"x","Secret":"mine"}`, "invalid"},
				{"create_keyword", `{"select":"x","doubled":5}`, "invalid"},
				{"create_keyword", `{"select":"x","Doubled":5}`, "invalid"},
				{"create_keyword", `{"select":"x","id":99}`, "invalid"},
				{"create_keyword", `{"select":"x","ID":99}`, "invalid"},
				{"create_keyword", `{"select":"x","a\"b":"raw name"}`, "invalid"},
				{"update_keyword", `{"id":1,"secret":"mine"}`, "invalid"},
				{"update_keyword", `{"id":1,"doubled":5}`, "invalid"},
				{"update_keyword", `{"id":1,"select":"y","SELECT":"z"}`, "invalid"},
				{"update_keyword", `{"id":1,"select":"y","Id":2}`, "invalid"},
				{"list_keywords", `{"filter":"secret == \"hunter2\""}`, "invalid"},
				{"list_keywords", `{"filter":"secret != null"}`, "invalid"},
				{"list_keywords", `{"orderBy":"secret"}`, "invalid"},
				{"list_keywords", `{"filter":"SELECT == \"s1\""}`, "invalid"},
				{"get_keyword", `{"secret":"hunter2"}`, "invalid"},
			} {
				o := c.attempt(call.tool, call.args)
				clean(t, call.tool+call.args, o)
				if !o.refused && o.code == 0 || o.refused && !strings.HasPrefix(o.text, call.prefix) {
					t.Errorf("%s(%s) = %q %s; want %s", call.tool, call.args, clip(o.text+string(o.raw), 150), o.message, call.prefix)
				}
			}
			if n := count(t, db, "keywords", "secret = 'hunter2'"); n != 2 {
				t.Errorf("%d rows keep their secret; want 2", n)
			}
			if n := count(t, db, "keywords", ""); n != 2 {
				t.Errorf("%d rows; want 2", n)
			}
		})
	}
}

// TestAttackPartialUpdate: an update never changes the key (a key given
// beside the natural key names the record; the natural key is then the
// new value), never touches fields not given, and a null for a
// non-nullable field is refused before the database sees it.
func TestAttackPartialUpdate(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		seed(t, c, 3)
		rec := record(t, c.ok("update_product", `{"sku":"P-2","name":"renamed"}`))
		if rec["id"] != float64(2) || rec["cost"] != float64(2) || rec["stock"] != float64(2) {
			t.Errorf("update by sku = %v; want id 2, cost and stock kept", rec)
		}
		// id names the record; sku is then a value to write.
		if got := c.refused("update_product", `{"id":3,"sku":"P-1"}`); !strings.HasPrefix(got, "conflict:") {
			t.Errorf("moving P-1's sku onto id 3 = %q; want a conflict", got)
		}
		for _, args := range []string{
			`{"id":1,"name":null}`, `{"id":1,"cost":null}`, `{"id":1,"active":null}`, `{"id":1}`,
			`{"sku":"P-1"}`, `{"id":1,"stock":"many"}`, `{"id":1,"created_at":"yesterday"}`,
			`{"id":1,"category_id":999}`, `{"id":1,"cost":-1}`, `{"id":1,"cost":1e400}`,
			`{"id":1,"name":"` + strings.Repeat("x", 201) + `"}`,
		} {
			o := c.attempt("update_product", args)
			clean(t, "update "+args, o)
			if !o.refused && o.code == 0 {
				t.Errorf("update_product(%s) = %s; want a refusal", args, clip(string(o.raw), 150))
			}
		}
		if n := count(t, db, "products", "id = 1 AND sku = 'P-1' AND name = 'Item 1' AND cost = 1 AND stock = 1 AND category_id IS NULL"); n != 1 {
			t.Errorf("P-1 changed by refused updates")
		}
	})
}
