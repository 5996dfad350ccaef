package entity

import (
	"context"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// TestEngineTimeout checks that the engine itself stops a statement past
// the timeout, with no deadline on the context: PostgreSQL's SET LOCAL
// statement_timeout and MariaDB's SET STATEMENT max_statement_time.
func TestEngineTimeout(t *testing.T) {
	ctx := context.Background()
	t.Run("postgres", func(t *testing.T) {
		db := dbtest.Postgres(t)
		tx, end, err := pgDialect{}.begin(ctx, db, true, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		defer end()
		defer rollbackQuietly(tx)
		start := time.Now()
		_, err = tx.ExecContext(ctx, "SELECT pg_sleep(3)")
		if classify(err) != timeoutHit || time.Since(start) > 2*time.Second {
			t.Errorf("pg_sleep past the timeout: %v after %s", err, time.Since(start))
		}
	})
	t.Run("mysql", func(t *testing.T) {
		db := dbtest.MySQL(t)
		d := &mysqlDialect{}
		tx, end, err := d.begin(ctx, db, true, 100*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		defer end()
		defer rollbackQuietly(tx)
		if !d.isMariaDB() {
			t.Skip("MySQL bounds only SELECTs, with a hint")
		}
		start := time.Now()
		var v any
		err = tx.QueryRowContext(ctx, d.statement("SELECT SLEEP(3)", 100*time.Millisecond)).Scan(&v)
		// MariaDB ends SLEEP early and answers 1 instead of failing.
		if time.Since(start) > 2*time.Second {
			t.Errorf("SLEEP past the timeout ran %s: %v %v", time.Since(start), v, err)
		}
		start = time.Now()
		heavy := "SELECT COUNT(*) FROM seq_1_to_100000 a, seq_1_to_100000 b WHERE a.seq + b.seq = 3"
		err = tx.QueryRowContext(ctx, d.statement(heavy, 100*time.Millisecond)).Scan(&v)
		if classify(err) != timeoutHit || time.Since(start) > 2*time.Second {
			t.Errorf("a long scan past the timeout: %v after %s", err, time.Since(start))
		}
	})
}
