package entity_test

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
)

// A timestamp finer than a microsecond is refused by writes, as filters
// refuse it, rather than cut short silently.
func TestSubMicrosecondTimestampRefused(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		c, _ := shop(t, db, nil, nil)
		msg, path := refusalOf(t, c, "create_product", `{"sku":"A-1","name":"n","created_at":"2026-01-02T03:04:05.1234567Z"}`)
		if path != "created_at" || !strings.Contains(msg, "microsecond") {
			t.Errorf("create: %q at %q; want a refusal of created_at's precision", msg, path)
		}
		if got := record(t, c.ok("create_product", `{"sku":"A-1","name":"n","created_at":"2026-01-02T03:04:05.123456Z"}`)); got["created_at"] != "2026-01-02T03:04:05.123456Z" {
			t.Errorf("created_at = %v", got["created_at"])
		}
		msg, path = refusalOf(t, c, "update_product", `{"sku":"A-1","created_at":"2026-01-02T03:04:05.000000001Z"}`)
		if path != "created_at" || !strings.Contains(msg, "microsecond") {
			t.Errorf("update: %q at %q; want a refusal of created_at's precision", msg, path)
		}
		filter, _ := json.Marshal(map[string]string{"filter": `created_at == timestamp("2026-01-02T03:04:05.1234567Z")`})
		if msg, _ := refusalOf(t, c, "list_products", string(filter)); !strings.Contains(msg, "microsecond") {
			t.Errorf("filter: %q", msg)
		}
	})
}
