package entity_test

import (
	"log/slog"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// On a server that confirms, a SQL tool that deletes or updates asks a
// person, one that inserts or reads does not, and Query.Confirm decides
// over both.
func TestQueryToolConfirm(t *testing.T) {
	db := dbtest.SQLite(t)
	for _, q := range productDDL["sqlite"] {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Confirm: true})
	set, err := entity.NewSet(srv, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, q := range []struct {
		name, sql string
		confirm   ferry.ConfirmPolicy
		want      bool
	}{
		{"drop_cheap", "DELETE FROM products WHERE cost < 1", 0, true},
		{"reprice", "UPDATE products SET cost = cost * 2", 0, true},
		{"add_category", "INSERT INTO categories (name) VALUES ('new')", 0, false},
		{"add_category_asking", "INSERT INTO categories (name) VALUES ('other')", ferry.ConfirmAlways, true},
		{"reprice_unasked", "UPDATE products SET cost = cost + 1", ferry.ConfirmNever, false},
		{"count_products", "SELECT COUNT(*) AS n FROM products", 0, false},
	} {
		mode := entity.Exec
		var cols []entity.QueryColumn
		if q.sql[0] == 'S' {
			mode, cols = entity.One, []entity.QueryColumn{{Name: "n", Type: entity.Integer}}
		}
		if err := set.AddQuery(t.Context(), &entity.Query{Name: q.name, Description: "A query of the test.", Mode: mode,
			SQL: q.sql, Columns: cols, Confirm: q.confirm}); err != nil {
			t.Fatalf("%s: %v", q.name, err)
		}
		want[q.name] = q.want
	}
	for _, tool := range srv.Catalog().Tools() {
		if tool.Confirm != want[tool.Name] {
			t.Errorf("%s: Confirm %v, want %v", tool.Name, tool.Confirm, want[tool.Name])
		}
	}
}
