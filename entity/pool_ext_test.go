package entity_test

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity"
)

// A call that waits for a connection of a bounded pool past its deadline
// is refused as unavailable, saying the connections were all busy and to
// try again later, on every engine; once a connection is free, calls
// succeed again.
func TestPoolWaitPastDeadlineIsUnavailable(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		if _, err := db.Exec(`INSERT INTO products (sku, name) VALUES ('P-1', 'One')`); err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		c, _ := shop(t, db, &entity.SetOptions{Timeout: 200 * time.Millisecond}, nil)
		held, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range []struct{ name, args string }{
			{"list_products", `{}`},
			{"get_product", `{"sku":"P-1"}`},
			{"update_product", `{"sku":"P-1","stock":1}`},
		} {
			got := c.callAsync(call.name, call.args)
			want := "unavailable: all 1 database connections of this server stayed busy with other calls until this call's deadline; try again later"
			if got.err != nil || !got.isError || !strings.HasPrefix(got.text, want) {
				t.Errorf("%s with the only connection held: %q %v; want %q...", call.name, got.text, got.err, want)
			}
		}
		_ = held.Close()
		if got := c.callAsync("update_product", `{"sku":"P-1","stock":2}`); got.err != nil || got.isError {
			t.Errorf("a call once the connection is free: %s", got.failure())
		}
	})
}
