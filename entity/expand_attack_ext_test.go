package entity_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// TestExpandHostileNames sends what an injection would as relation
// names: every call is refused as invalid, nothing of the hidden column
// shows, and both tables are unchanged.
func TestExpandHostileNames(t *testing.T) {
	nasty := []string{
		"secret", "customer_id", "customers", "i24exp_customers", "Customer", "customer ", " customer", "customer\x00",
		"ｃｕｓｔｏｍｅｒ", `customer"; DROP TABLE i24exp_orders; --`, `'`, "`", `\`, `/* */`, `;`, "customer.secret",
		"(SELECT secret FROM i24exp_customers)", strings.Repeat("c", 3000), `$1`, `?`, "\u202e",
	}
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			db := e.Open(t)
			loadExpand(t, e.Name, db)
			c, _ := expandServer(t, db, nil)
			before := checksumTables(t, db, "i24exp_customers", "i24exp_orders")
			for _, s := range nasty {
				q, _ := json.Marshal([]string{s})
				for _, call := range []struct{ tool, args string }{
					{"list_i24exp_orders", `{"expand":` + string(q) + `}`},
					{"get_i24exp_order", `{"id":10,"expand":` + string(q) + `}`},
					{"list_i24exp_orders", `{"expand":["customer",` + string(q[1:len(q)-1]) + `]}`},
				} {
					r := c.call(call.tool, call.args)
					if !r.IsError || !strings.HasPrefix(r.text(), "invalid") || strings.Contains(r.text(), "S1") {
						t.Errorf("%s %.120s: %.200s; want an invalid refusal", call.tool, call.args, r.text())
					}
				}
			}
			for _, args := range []string{`{"expand":{"customer":1}}`, `{"expand":[1]}`, `{"expand":["customer","customer"]}`} {
				if r := c.call("list_i24exp_orders", args); !r.IsError {
					t.Errorf("list %s: %.200s; want a refusal", args, r.text())
				}
			}
			if after := checksumTables(t, db, "i24exp_customers", "i24exp_orders"); after != before {
				t.Error("the tables changed")
			}
		})
	}
}
