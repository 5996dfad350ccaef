package filter

import (
	"database/sql"
	"math"
	"strconv"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// TestNonFiniteNumbersFilterAsNull checks, against cel-go with every NaN
// and infinity read as null, what a NonFinite field's filters keep on the
// engines that hold such numbers: PostgreSQL's numeric and double
// precision, SQLite's REAL (which stores a NaN as NULL).
func TestNonFiniteNumbersFilterAsNull(t *testing.T) {
	values := map[int64]float64{1: 1.5, 2: math.NaN(), 3: math.Inf(1), 4: math.Inf(-1), 6: -2}
	exprs := []string{
		`x == null`, `x != null`, `x > 1.0`, `x >= 1.5`, `x < 1.0`, `x <= 1.5`, `x > 1e308`, `x < -1e308`,
		`!(x > 1.0)`, `!(x < 1.0)`, `!(x <= 1.5)`, `!(x >= -2.0)`, `x == 1.5`, `x != 1.5`, `!(x == 1.5)`,
		`x in [1.5, -2.0]`, `!(x in [1.5])`, `x > 0.0 || x == null`, `!(x > 0.0 || x < 0.0)`, `x > 0.0 && x < 2.0`,
		`!(x > 0.0 && x < 2.0)`, `x == null || x > 1.0`,
	}
	env, err := NewEnv([]Field{{Name: "x", Type: Number, Nullable: true, NonFinite: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	engines := []struct {
		name   Engine
		open   func(testing.TB) *sql.DB
		types  []string // column types to try
		values string
	}{
		{SQLite, dbtest.SQLite, []string{"REAL", "DOUBLE", "NUMERIC"},
			"(1, 1.5), (2, NULL), (3, 9e999), (4, -9e999), (5, NULL), (6, -2)"},
		{PostgreSQL, dbtest.Postgres, []string{"double precision", "real", "numeric"},
			"(1, 1.5), (2, 'NaN'), (3, 'Infinity'), (4, '-Infinity'), (5, NULL), (6, -2)"},
	}
	for _, e := range engines {
		t.Run(string(e.name), func(t *testing.T) {
			db := e.open(t)
			for _, typ := range e.types {
				if _, err := db.ExecContext(t.Context(), "DROP TABLE IF EXISTS m"); err != nil {
					t.Fatal(err)
				}
				for _, q := range []string{"CREATE TABLE m (id int PRIMARY KEY, x " + typ + ")", "INSERT INTO m VALUES " + e.values} {
					if _, err := db.ExecContext(t.Context(), q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				for _, expr := range exprs {
					got := engineIDs(t, db, e.name, env, expr)
					want := celNonFiniteIDs(t, env, expr, values)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s %s: %s keeps %v, CEL %v", e.name, typ, expr, got, want)
					}
				}
			}
		})
	}
}

// celNonFiniteIDs evaluates expr over ids 1 to 6, x being values[id] or
// null where that is absent or not finite.
func celNonFiniteIDs(t *testing.T, env *Env, expr string, values map[int64]float64) []int64 {
	t.Helper()
	checked, iss := env.CEL().Compile(expr)
	if iss.Err() != nil {
		t.Fatalf("%s: %v", expr, iss.Err())
	}
	prg, err := env.CEL().Program(checked)
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for id := int64(1); id <= 6; id++ {
		var x any = types.NullValue
		if v, ok := values[id]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			x = v
		}
		if out, _, _ := prg.Eval(map[string]any{"x": x}); out == types.True {
			ids = append(ids, id)
		}
	}
	return ids
}

// engineIDs runs expr over table m of db and returns the ids it keeps.
func engineIDs(t *testing.T, db *sql.DB, engine Engine, env *Env, expr string) []int64 {
	t.Helper()
	var args []any
	cond, err := env.Translate(expr, engine, func(int) string { return `"m"."x"` },
		func(v any, _ Type) string {
			args = append(args, v)
			if engine == PostgreSQL {
				return "$" + strconv.Itoa(len(args))
			}
			return "?"
		})
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	rows, err := db.QueryContext(t.Context(), "SELECT id FROM m WHERE "+cond+" ORDER BY id", args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", expr, err, cond)
	}
	defer rows.Close()
	ids := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestNonFiniteOrderingKeepsTheIndex shows that an ordering of a
// NonFinite field leaves the column bare, so that PostgreSQL serves it
// from the column's index (seen with sequential scans turned off, so
// that the plan shows what is possible rather than what a small table
// makes cheapest).
func TestNonFiniteOrderingKeepsTheIndex(t *testing.T) {
	db := dbtest.Postgres(t)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"CREATE TABLE m (id int PRIMARY KEY, x double precision NOT NULL)",
		"CREATE INDEX m_x ON m (x)",
		"INSERT INTO m SELECT g, g FROM generate_series(1, 1000) g",
		"ANALYZE m",
		"SET enable_seqscan = off",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	env, err := NewEnv([]Field{{Name: "x", Type: Number, Nullable: true, NonFinite: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{`x > 990.0`, `x <= 3.0`, `x == 5.0`} {
		var args []any
		cond, err := env.Translate(expr, PostgreSQL, func(int) string { return `"m"."x"` },
			func(v any, _ Type) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) })
		if err != nil {
			t.Fatal(err)
		}
		rows, err := conn.QueryContext(t.Context(), "EXPLAIN SELECT id FROM m WHERE "+cond, args...)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		var plan string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan += line + "\n"
		}
		rows.Close()
		if !strings.Contains(plan, "m_x") {
			t.Errorf("%s: the plan does not use the index on x:\n%s", expr, plan)
		}
	}
}
