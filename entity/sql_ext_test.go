package entity_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// recorder is a real connection that notes the queries run on it. It
// has no BeginTx, so that the Set runs every statement on it directly.
type recorder struct {
	conn    *sql.Conn
	mu      sync.Mutex // guards queries
	queries []recorded
}

type recorded struct {
	sql  string
	args []any
}

func (r *recorder) note(q string, args []any) {
	r.mu.Lock()
	r.queries = append(r.queries, recorded{q, args})
	r.mu.Unlock()
}

func (r *recorder) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r.note(q, args)
	return r.conn.QueryContext(ctx, q, args...)
}

func (r *recorder) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	r.note(q, args)
	return r.conn.QueryRowContext(ctx, q, args...)
}

func (r *recorder) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	r.note(q, args)
	return r.conn.ExecContext(ctx, q, args...)
}

// Price is a number that NaN and the infinities could reach.
type Price struct {
	ID    int64   `json:"id" entity:"key"`
	Price float64 `json:"price" entity:"filter,sort"`
}

// Serving a NaN or an infinity as null, and filtering it as null, keeps
// a number column bare in the SQL, so that its index still serves a
// filter's comparison and an orderBy: PostgreSQL's plan for each query a
// list sends uses the index (sequential scans off, so that the plan shows
// what is possible, not what a small table makes cheapest).
func TestNumberFilterAndOrderKeepTheIndex(t *testing.T) {
	db := dbtest.Postgres(t)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"CREATE TABLE prices (id bigint PRIMARY KEY, price double precision NOT NULL)",
		"CREATE INDEX i21types_price_idx ON prices (price)",
		"INSERT INTO prices SELECT g, g FROM generate_series(1, 2000) g",
		"ANALYZE prices",
		"SET enable_seqscan = off",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rec := &recorder{conn: conn}
	srv := quiet()
	set, err := entity.NewSet(srv, rec, &entity.SetOptions{Engine: entity.PostgreSQL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := entity.Add[Price](set, nil); err != nil {
		t.Fatal(err)
	}
	c := serve(t, srv)
	for _, args := range []string{`{"filter":"price > 1990.0"}`, `{"filter":"!(price >= 10.0)"}`, `{"orderBy":"price desc","top":5}`} {
		rec.mu.Lock()
		rec.queries = nil
		rec.mu.Unlock()
		c.ok("list_prices", args)
		rec.mu.Lock()
		queries := rec.queries
		rec.mu.Unlock()
		selects := 0
		for _, q := range queries {
			if !strings.HasPrefix(q.sql, "SELECT ") || strings.HasPrefix(q.sql, "SELECT COUNT(*)") && !strings.Contains(args, "filter") {
				continue
			}
			selects++
			plan := explain(t, conn, q)
			if !strings.Contains(plan, "i21types_price_idx") {
				t.Errorf("list_prices %s: the plan of\n%s\ndoes not use the index on price:\n%s", args, q.sql, plan)
			}
		}
		if selects == 0 {
			t.Errorf("list_prices %s: no query seen", args)
		}
	}
}

func explain(t *testing.T, conn *sql.Conn, q recorded) string {
	t.Helper()
	rows, err := conn.QueryContext(t.Context(), "EXPLAIN "+q.sql, q.args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q.sql, err)
	}
	defer rows.Close()
	var plan strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	return plan.String()
}
