package entity_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// Ticket has a UUID key the caller gives; Tag a text key.
type Ticket struct {
	ID    string `json:"id" entity:"key,uuid"`
	Title string `json:"title" entity:"filter"`
}

type Tag struct {
	Code  string `json:"code" entity:"key"`
	Label string `json:"label"`
}

func TestUUIDAndTextKeys(t *testing.T) {
	ddl := map[string][]string{
		"sqlite":   {`CREATE TABLE tickets (id TEXT PRIMARY KEY, title TEXT NOT NULL)`, `CREATE TABLE tags (code TEXT PRIMARY KEY, label TEXT NOT NULL)`},
		"postgres": {`CREATE TABLE tickets (id UUID PRIMARY KEY, title TEXT NOT NULL)`, `CREATE TABLE tags (code TEXT PRIMARY KEY, label TEXT NOT NULL)`},
		"mysql":    {`CREATE TABLE tickets (id CHAR(36) PRIMARY KEY, title TEXT NOT NULL)`, `CREATE TABLE tags (code VARCHAR(20) PRIMARY KEY, label TEXT NOT NULL)`},
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			for _, q := range ddl[e.Name] {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			srv := quiet()
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := entity.Add[Ticket](set, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := entity.Add[Tag](set, nil); err != nil {
				t.Fatal(err)
			}
			c := serve(t, srv)
			const id = "0b9e3f4c-2d1a-4c5e-9f00-123456789abc"
			c.ok("create_ticket", `{"id":"`+id+`","title":"broken"}`)
			if got := record(t, c.ok("get_ticket", `{"id":"`+id+`"}`)); got["id"] != id {
				t.Errorf("get_ticket = %v", got)
			}
			if got := c.refused("create_ticket", `{"id":"not-a-uuid","title":"x"}`); got == "" {
				t.Error("a bad uuid accepted")
			}
			c.ok("create_tag", `{"code":"Red","label":"red things"}`)
			// Text keys match exactly, even where the collation folds
			// case and trailing spaces.
			for _, k := range []string{"red", "RED", "Red "} {
				if got := c.refused("get_tag", `{"code":"`+k+`"}`); got != `not-found: no tag with code "`+k+`"` {
					t.Errorf("get_tag(%q) = %q", k, got)
				}
			}
			up := record(t, c.ok("update_tag", `{"code":"Red","label":"crimson"}`))
			if up["label"] != "crimson" {
				t.Errorf("update_tag = %v", up)
			}
			if n := count(t, db, "tags", ""); n != 1 {
				t.Errorf("%d tags", n)
			}
		})
	}
}

// TestInCallersTransaction serves from a *sql.Tx the caller owns: the
// engine must be named, and calls run in that transaction.
func TestInCallersTransaction(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := entity.NewSet(quiet(), tx, nil); err == nil || !strings.Contains(err.Error(), "SetOptions.Engine") {
		t.Fatalf("NewSet of a *sql.Tx without an engine: %v", err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, tx, &entity.SetOptions{Engine: entity.SQLite})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Category](set, nil); err != nil {
		t.Fatal(err)
	}
	c := serve(t, srv)
	c.ok("create_category", `{"name":"Tools"}`)
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM categories").Scan(&n); err != nil || n != 1 {
		t.Fatalf("inside the transaction: %d, %v", n, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, "categories", ""); n != 0 {
		t.Errorf("%d categories after the caller's rollback", n)
	}
}

// Event has no key: read tools only. Its date and boolean fields round
// trip on every engine.
func TestNoKeyAndDates(t *testing.T) {
	ddl := map[string]string{
		"sqlite":   `CREATE TABLE events (name TEXT NOT NULL, day DATE, public BOOLEAN NOT NULL)`,
		"postgres": `CREATE TABLE events (name TEXT NOT NULL, day DATE, public BOOLEAN NOT NULL)`,
		"mysql":    `CREATE TABLE events (name VARCHAR(50) NOT NULL, day DATE, public BOOLEAN NOT NULL)`,
	}
	insert := map[string]string{
		"sqlite":   `INSERT INTO events VALUES ('launch', '2026-03-04', 1), ('party', NULL, 0)`,
		"postgres": `INSERT INTO events VALUES ('launch', '2026-03-04', true), ('party', NULL, false)`,
		"mysql":    `INSERT INTO events VALUES ('launch', '2026-03-04', 1), ('party', NULL, 0)`,
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			for _, q := range []string{ddl[e.Name], insert[e.Name]} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			srv := quiet()
			set, err := entity.NewSet(srv, db, nil)
			if err != nil {
				t.Fatal(err)
			}
			ev := &entity.Entity{Name: "event", Plural: "events", Table: "events", Fields: []*entity.Field{
				{Name: "name", Column: "name", Type: entity.Text, Filterable: true, Sortable: true},
				{Name: "day", Column: "day", Type: entity.Date, Nullable: true, Filterable: true, Sortable: true},
				{Name: "public", Column: "public", Type: entity.Boolean, Filterable: true},
			}}
			if _, err := set.Add(ev, nil); err != nil {
				t.Fatal(err)
			}
			c := serve(t, srv)
			tools := toolsOf(t, c)
			if len(tools) != 1 || !strings.Contains(tools["list_events"].Description, "read-only") {
				t.Fatalf("tools of a keyless table: %v", tools)
			}
			p := listOf(t, c.ok("list_events", `{"orderBy":"day desc"}`))
			if len(p.Data) != 2 || p.Data[0]["day"] != "2026-03-04" || p.Data[0]["public"] != true || p.Data[1]["day"] != nil || p.Data[1]["public"] != false {
				t.Errorf("events = %v", p.Data)
			}
			p = listOf(t, c.ok("list_events", `{"filter":"day == date(\"2026-03-04\") && public"}`))
			if len(p.Data) != 1 || p.Data[0]["name"] != "launch" {
				t.Errorf("filtered events = %v", p.Data)
			}
		})
	}
}

// TestWideTable registers 300 filterable columns: every description stays
// within what clients accept, so the server starts.
func TestWideTable(t *testing.T) {
	db := dbtest.SQLite(t)
	e := &entity.Entity{Name: "wide", Plural: "wides", Table: "wides", Key: "id"}
	cols := []string{"id INTEGER PRIMARY KEY"}
	e.Fields = append(e.Fields, &entity.Field{Name: "id", Column: "id", Type: entity.Integer, Generated: true, Filterable: true, Sortable: true})
	for i := range 300 {
		name := "a_rather_long_column_name_" + strconv.Itoa(i)
		cols = append(cols, name+" TEXT")
		e.Fields = append(e.Fields, &entity.Field{Name: name, Column: name, Type: entity.Text, Nullable: true, Filterable: true, Sortable: true})
	}
	if _, err := db.Exec("CREATE TABLE wides (" + strings.Join(cols, ", ") + ")"); err != nil {
		t.Fatal(err)
	}
	srv := quiet()
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := set.Add(e, nil); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	c := serve(t, srv)
	c.ok("create_wide", `{"a_rather_long_column_name_299":"x"}`)
	if p := listOf(t, c.ok("list_wides", `{"filter":"a_rather_long_column_name_299 == \"x\""}`)); len(p.Data) != 1 {
		t.Errorf("wide list = %v", p.Data)
	}
}

// A table whose primary key has several columns says once, in its list
// tool's description, that it is read-only and why it has no get tool.
func TestCompositeKeyDescribedOnce(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			execAll(t, db, `CREATE TABLE i21types_lines (order_id INTEGER NOT NULL, line INTEGER NOT NULL, qty INTEGER,
				PRIMARY KEY (order_id, line))`)
			c, _ := introspected(t, db)
			tools := toolsOf(t, c)
			if _, ok := tools["get_i21types_line"]; ok {
				t.Fatal("a get tool for a table with a two-column key")
			}
			desc := tools["list_i21types_lines"].Description
			if n := len(regexp.MustCompile(`(?i)read.only|read tools only`).FindAllString(desc, -1)); n != 1 {
				t.Errorf("the description says %d times that the table is read-only: %q", n, desc)
			}
			if !strings.Contains(desc, "2 columns (order_id, line)") || !strings.Contains(desc, "no get tool") {
				t.Errorf("the description does not say why there is no get tool: %q", desc)
			}
		})
	}
}
