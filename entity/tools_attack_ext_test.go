package entity_test

import (
	"database/sql"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// TestAttackReadOnlyServer serves the entities on a server whose
// ServerOptions.ReadOnly is set (the entity set itself is not read-only):
// no write tool is listed, and calling one by its name, by a case variant
// or with a mismatched Mcp-Name header writes nothing.
func TestAttackReadOnlyServer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		if _, err := db.Exec(`INSERT INTO products (sku, name, cost) VALUES ('P-1', 'Item 1', 1)`); err != nil {
			t.Fatal(err)
		}
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{ReadOnly: true, Logger: slog.New(slog.DiscardHandler)})
		set, err := entity.NewSet(srv, db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := entity.Add[Product](set, nil); err != nil {
			t.Fatal(err)
		}
		c := serve(t, srv)
		tools := c.tools()
		for name := range tools {
			if !strings.HasPrefix(name, "get_") && !strings.HasPrefix(name, "list_") {
				t.Errorf("read-only server lists %s", name)
			}
		}
		if len(tools) != 2 {
			t.Errorf("read-only server lists %d tools; want get_product and list_products", len(tools))
		}
		before := checksum(t, db)
		for _, call := range []struct{ name, header, args string }{
			{"create_product", "create_product", `{"sku":"X-1","name":"x"}`},
			{"update_product", "update_product", `{"id":1,"name":"x"}`},
			{"delete_product", "delete_product", `{"id":1}`},
			{"Create_Product", "Create_Product", `{"sku":"X-1","name":"x"}`},
			{"delete_product ", "delete_product ", `{"id":1}`},
			{"delete_product", "get_product", `{"id":1}`},
			{"get_product", "delete_product", `{"id":1}`},
		} {
			raw, perr := c.rpc("tools/call", call.header, `{"name":`+jsonQuote(call.name)+`,"arguments":`+call.args+`,`+meta+`}`)
			if perr == nil && !strings.Contains(string(raw), `"isError":true`) && call.name != "get_product" {
				t.Errorf("%s (header %q) on a read-only server = %s", call.name, call.header, clip(string(raw), 150))
			}
		}
		if after := checksum(t, db); after != before {
			t.Errorf("a read-only server wrote:\n%s\n%s", before, after)
		}
	})
}
