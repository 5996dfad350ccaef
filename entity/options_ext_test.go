package entity_test

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// An entity's own Timeout replaces the Set's: a statement that outlives
// it is refused as unavailable, naming it, on every engine, long before
// the Set's timeout or the server's deadline; the entity's tools get a
// deadline a little beyond it, and the other entities keep the server's.
func TestEntityTimeoutReplacesTheSets(t *testing.T) {
	slow := map[string]string{
		"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
		"postgres": "SELECT pg_sleep(20)",
		"mysql":    "SELECT SLEEP(20)",
	}
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		name := t.Name()[len("TestEntityTimeoutReplacesTheSets/"):]
		var slowed atomic.Bool
		opts := &entity.Options{Timeout: 200 * time.Millisecond, Hooks: entity.Hooks{BeforeRead: func(ctx context.Context, r *entity.Read) error {
			if slowed.Swap(true) {
				return nil
			}
			var v any
			return r.Tx.QueryRowContext(ctx, slow[name]).Scan(&v)
		}}}
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: time.Hour}})
		c, _ := shopOn(t, srv, db, &entity.SetOptions{Timeout: 30 * time.Second}, opts)
		start := time.Now()
		got := c.refused("list_products", `{}`)
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("the call took %s", el)
		}
		if !strings.HasPrefix(got, "unavailable: the database did not answer within 200ms") {
			t.Errorf("slow list = %q", got)
		}
		c.ok("list_products", `{}`)
		want := map[string]time.Duration{"list_products": 200*time.Millisecond + 40*time.Millisecond + time.Second, "list_categories": time.Hour}
		for _, info := range srv.Catalog().Tools() {
			if d, ok := want[info.Name]; ok && info.Timeout != d {
				t.Errorf("%s: deadline %v, want %v", info.Name, info.Timeout, d)
			}
		}
	})
}

// An entity whose Timeout is longer than the server's CallTimeout runs
// its calls to the end: its tools' deadline is its own.
func TestEntityTimeoutOutlastsTheServers(t *testing.T) {
	forEachEngine(t, func(t *testing.T, db *sql.DB) {
		opts := &entity.Options{Timeout: 30 * time.Second, Hooks: entity.Hooks{BeforeRead: func(ctx context.Context, _ *entity.Read) error {
			select {
			case <-time.After(300 * time.Millisecond): // a hook slower than the server's deadline
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}}
		srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: 50 * time.Millisecond}})
		c, _ := shopOn(t, srv, db, nil, opts)
		c.ok("list_products", `{}`)
	})
}
