package entity_test

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

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
		if _, err := entity.Register[Tag](set, nil); err != nil {
			t.Fatal(err)
		}
		c := serve(t, srv)
		got := c.refused("get_tag", `{"code":"🙂"}`)
		if got != `not-found: no tag with code "🙂"` && got[:8] != "invalid:" {
			t.Errorf("emoji on a latin1 key = %q", got)
		}
	})
}
