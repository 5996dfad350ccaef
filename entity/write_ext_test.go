package entity_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

func TestWriteHooks(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		opts := &entity.Options{Hooks: entity.Hooks{
			BeforeCreate: func(_ context.Context, w *entity.Write) error {
				if w.Principal == nil {
					return ferry.Forbidden("sign in to create products")
				}
				w.Values["created_by"] = w.Principal.Subject
				return nil
			},
			BeforeUpdate: func(ctx context.Context, w *entity.Write) error {
				// A write in the transaction, then a refusal: both undone.
				if _, err := w.Tx.ExecContext(ctx, "INSERT INTO categories (name) VALUES ('side effect')"); err != nil {
					return err
				}
				if w.Old["sku"] == "LOCKED-1" {
					return ferry.Conflict("LOCKED-1 cannot change")
				}
				return nil
			},
			BeforeDelete: func(_ context.Context, w *entity.Write) error {
				if w.Old["stock"] != nil {
					return ferry.Conflict("a product in stock cannot be deleted")
				}
				return nil
			},
		}}
		c, _ := shop(t, db, nil, opts)
		if got := c.refused("create_product", `{"sku":"A-1","name":"x"}`); got != "forbidden: sign in to create products" {
			t.Errorf("anonymous create = %q", got)
		}
		c.tenant = "t1"
		p := record(t, c.ok("create_product", `{"sku":"LOCKED-1","name":"x","stock":1}`))
		if p["created_by"] != "user-t1" {
			t.Errorf("created_by = %v; want the hook's user-t1", p["created_by"])
		}
		if got := c.refused("update_product", `{"sku":"LOCKED-1","name":"y"}`); got != "conflict: LOCKED-1 cannot change" {
			t.Errorf("update = %q", got)
		}
		if n := count(t, db, "categories", ""); n != 0 {
			t.Errorf("a refused update's hook write survived: %d categories", n)
		}
		if got := c.refused("delete_product", `{"id":1}`); got != "conflict: a product in stock cannot be deleted" {
			t.Errorf("delete = %q", got)
		}
		if n := count(t, db, "products", "name = 'x'"); n != 1 {
			t.Errorf("product changed or gone after refusals")
		}
	})
}
