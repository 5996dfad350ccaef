package entity_test

import (
	"log/slog"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
	"github.com/google/go-cmp/cmp"
)

// Which of an entity's tools a person confirms: on a server that
// confirms, delete (destructive) and update (it overwrites) by default,
// create too with ConfirmAlways, none with ConfirmNever; on a server that
// does not, only ConfirmAlways asks.
func TestToolsConfirm(t *testing.T) {
	for _, tt := range []struct {
		name    string
		server  bool
		confirm ferry.ConfirmPolicy
		want    []string
	}{
		{"server confirms, default", true, ferry.ConfirmDestructive, []string{"delete_product", "update_product"}},
		{"server confirms, always", true, ferry.ConfirmAlways, []string{"create_product", "delete_product", "update_product"}},
		{"server confirms, never", true, ferry.ConfirmNever, nil},
		{"server does not, default", false, ferry.ConfirmDestructive, nil},
		{"server does not, always", false, ferry.ConfirmAlways, []string{"create_product", "delete_product", "update_product"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := dbtest.SQLite(t)
			for _, q := range productDDL["sqlite"] {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Confirm: tt.server})
			shopOn(t, srv, db, nil, &entity.Options{Confirm: tt.confirm})
			var got []string
			for _, tool := range srv.Catalog().Tools() {
				if tool.Confirm && tool.Name != "create_category" && tool.Name != "update_category" && tool.Name != "delete_category" {
					got = append(got, tool.Name)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools that confirm (-want +got):\n%s", diff)
			}
		})
	}
}
