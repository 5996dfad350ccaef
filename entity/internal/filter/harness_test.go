package filter

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"cel.dev/cel-go/common/types"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

// The fixture: one table, items, whose columns are the filterable fields
// below, with rows chosen to trip every engine's defaults: NULLs, case,
// trailing spaces, accents (composed and not), emoji, look-alikes, %, _,
// \ and quotes, the empty string beside NULL, an int4's edge.

var fixtureFields = []Field{
	{Name: "id", Type: Integer},
	{Name: "name", Type: Text},
	{Name: "note", Type: Text, Nullable: true},
	{Name: "stock", Type: Integer, Nullable: true},
	{Name: "qty", Type: Integer},
	{Name: "cost", Type: Number},
	{Name: "price", Type: Number, Nullable: true},
	{Name: "active", Type: Boolean, Nullable: true},
	{Name: "due", Type: Date, Nullable: true},
	{Name: "seen", Type: Timestamp, Nullable: true},
	{Name: "uid", Type: UUID, Nullable: true},
}

// fixtureFieldList is how refusals list fixtureFields.
const fixtureFieldList = "id (integer), name (text), note (text or null), stock (integer or null), " +
	"qty (integer), cost (number), price (number or null), active (boolean or null), " +
	"due (date or null), seen (timestamp or null), uid (uuid or null)"

// row holds one row's values in field order; nil is NULL.
type row []any

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func instant(s string) time.Time {
	d, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return d.UTC()
}

const uid1 = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"

var fixtureRows = []row{
	{int64(1), "apple", "Red fruit", int64(5), int64(10), 1.5, 2.0, true, day("2024-01-01"), instant("2024-01-01T10:00:00Z"), uid1},
	{int64(2), "Apple", nil, nil, int64(0), 100.0, nil, nil, nil, nil, nil},
	{int64(3), "apple ", "red fruit", int64(0), int64(-3), 99.99, 100.0, false, day("2024-02-29"), instant("2024-02-29T23:59:59.5Z"), "b1eebc99-9c0b-4ef8-bb6d-6bb9bd380a12"},
	{int64(4), "äpple", "100% juice", int64(100), int64(7), 0.0, -1.25, true, day("2023-12-31"), instant("2023-12-31T00:00:00Z"), "0aeebc99-9c0b-4ef8-bb6d-6bb9bd380a13"},
	{int64(5), "😀 smile", "under_score", int64(-1), int64(1 << 40), 1e10, 0.0, false, day("2024-05-01"), instant("2024-05-01T12:30:00.123456Z"), nil},
	{int64(6), `back\slash`, `it's "quoted"`, int64(2147483647), int64(2), 2.5, 2.5, nil, day("2024-01-02"), instant("2024-01-01T09:59:59Z"), "ffffffff-ffff-ffff-ffff-ffffffffffff"},
	{int64(7), "", "", int64(1), int64(1), -0.5, nil, true, nil, instant("1999-12-31T23:59:59Z"), nil},
	{int64(8), "a%b_c", "-- c /* x */; DROP TABLE items", int64(2), int64(3), 3.0, 3.0, false, day("2024-01-01"), nil, nil},
	{int64(9), "Zebra", "ÄPPLE", int64(-2147483648), int64(4), 50.0, 50.0, true, day("2025-06-30"), instant("2030-01-01T00:00:00Z"), nil},
	{int64(10), "ａpple", "раple", nil, int64(5), 7.25, nil, nil, nil, nil, nil},
	{int64(11), "\u00e9", "e\u0301", int64(3), int64(6), 1.5, 1.5, false, day("2024-03-01"), instant("2024-03-01T00:00:00Z"), nil},
	{int64(12), "e\u0301", "\u00e9", int64(4), int64(8), 1.0, nil, nil, day("2024-03-02"), nil, nil},
	{int64(13), "apple\U0001F34E", "💯", int64(6), int64(9), 1e-3, 1e-3, true, day("2024-01-01"), instant("2024-01-01T10:00:00.000001Z"), nil},
}

// engine is one database the fixture is loaded into.
type engine struct {
	name   Engine
	db     *sql.DB
	quote  func(string) string
	params func(n int) string // the placeholder of the n-th parameter
}

// forEachEngine runs f in a subtest per engine, with the fixture loaded
// into a fresh database of that engine.
func forEachEngine(t *testing.T, f func(t *testing.T, e *engine)) {
	t.Helper()
	for _, de := range dbtest.Engines {
		t.Run(de.Name, func(t *testing.T) {
			e := &engine{name: Engine(de.Name), db: de.Open(t)}
			e.setDialect()
			if err := e.load(t.Context()); err != nil {
				t.Fatalf("loading the fixture: %v", err)
			}
			f(t, e)
		})
	}
}

func (e *engine) setDialect() {
	e.quote = func(s string) string { return `"` + s + `"` }
	e.params = func(int) string { return "?" }
	switch e.name {
	case MySQL:
		e.quote = func(s string) string { return "`" + s + "`" }
	case PostgreSQL:
		e.params = func(n int) string { return "$" + strconv.Itoa(n) }
	}
}

// ddl is the table per engine, with collations that fold case, accents
// or trailing spaces where the engine has them, so the translator has to
// undo them.
func (e *engine) ddl() string {
	switch e.name {
	case PostgreSQL:
		return `CREATE TABLE items (id bigint PRIMARY KEY, name text COLLATE "en-US-x-icu" NOT NULL,
			note varchar(200), stock integer, qty bigint NOT NULL, cost double precision NOT NULL,
			price numeric(20,6), active boolean, due date, seen timestamptz, uid uuid)`
	case MySQL:
		return `CREATE TABLE items (id bigint PRIMARY KEY, name varchar(200) NOT NULL,
			note text, stock int, qty bigint NOT NULL, cost double NOT NULL,
			price decimal(20,6), active boolean, due date, seen datetime(6), uid char(36))
			CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`
	}
	return `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT COLLATE NOCASE,
		stock INTEGER, qty INTEGER NOT NULL, cost REAL NOT NULL, price REAL, active INTEGER,
		due TEXT, seen TEXT, uid TEXT COLLATE NOCASE)`
}

func (e *engine) load(ctx context.Context) error {
	if _, err := e.db.ExecContext(ctx, e.ddl()); err != nil {
		return err
	}
	ph := make([]string, len(fixtureFields))
	for i := range ph {
		ph[i] = e.params(i + 1)
	}
	insert := "INSERT INTO items VALUES (" + strings.Join(ph, ", ") + ")"
	for _, r := range fixtureRows {
		args := make([]any, len(r))
		for i, v := range r {
			args[i] = e.encode(v, fixtureFields[i].Type)
		}
		if _, err := e.db.ExecContext(ctx, insert, args...); err != nil {
			return fmt.Errorf("row %v: %w", r[0], err)
		}
	}
	return nil
}

// encode is the value as the entity package binds it for the engine
// (entity's encode): numbers as decimal text but on SQLite, booleans 0/1
// but on PostgreSQL, dates as text, timestamps as fixed-width UTC text on
// SQLite.
func (e *engine) encode(v any, t Type) any {
	switch v := v.(type) {
	case nil:
		return nil
	case float64:
		if e.name == SQLite {
			return v
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		if e.name == PostgreSQL {
			return v
		}
		if v {
			return int64(1)
		}
		return int64(0)
	case time.Time:
		if t == Date {
			return v.Format(time.DateOnly)
		}
		if e.name == SQLite {
			return v.UTC().Format("2006-01-02T15:04:05.000000Z")
		}
		return v.UTC()
	}
	return v
}

// selectIDs translates expr and returns the ids of the rows it keeps.
func (e *engine) selectIDs(t *testing.T, env *Env, expr string) ([]int64, error) {
	t.Helper()
	var args []any
	cond, err := env.Translate(expr, e.name,
		func(i int) string { return e.quote("items") + "." + e.quote(fixtureFields[i].Name) },
		func(v any, ty Type) string {
			args = append(args, e.encode(v, ty))
			return e.params(len(args))
		})
	if err != nil {
		return nil, err
	}
	query := "SELECT id FROM items WHERE " + cond + " ORDER BY id"
	rows, err := e.db.QueryContext(t.Context(), query, args...)
	if err != nil {
		t.Fatalf("%s: %s: the SQL failed: %v\n%s %v", e.name, expr, err, query, args)
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
		t.Fatalf("%s: %s: %v", e.name, expr, err)
	}
	return ids, nil
}

// checksum digests the whole table and the list of tables, to show a
// corpus of filters changed nothing.
func (e *engine) checksum(t *testing.T) string {
	t.Helper()
	rows, err := e.db.QueryContext(t.Context(), "SELECT * FROM items ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	h := sha256.New()
	vals := make([]any, len(fixtureFields))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%v\n", vals)
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(h, "rows %d tables %d", n, e.tables(t))
	return hex.EncodeToString(h.Sum(nil))
}

func (e *engine) tables(t *testing.T) int {
	t.Helper()
	q := "SELECT count(*) FROM sqlite_master"
	switch e.name {
	case PostgreSQL:
		q = "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
	case MySQL:
		q = "SELECT count(*) FROM information_schema.tables WHERE table_schema = database()"
	}
	var n int
	if err := e.db.QueryRowContext(t.Context(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// celIDs evaluates expr with cel-go over every fixture row and returns
// the ids of the rows for which it is true: the oracle.
func celIDs(t *testing.T, env *Env, expr string) []int64 {
	t.Helper()
	checked, iss := env.CEL().Compile(expr)
	if iss.Err() != nil {
		t.Fatalf("%s: cel: %v", expr, iss.Err())
	}
	prg, err := env.CEL().Program(checked)
	if err != nil {
		t.Fatalf("%s: cel program: %v", expr, err)
	}
	ids := []int64{}
	for _, r := range fixtureRows {
		if out, _, _ := prg.Eval(activation(r)); out == types.True {
			ids = append(ids, r[0].(int64))
		}
	}
	return ids
}

func activation(r row) map[string]any {
	vars := make(map[string]any, len(r))
	for i, v := range r {
		switch v := v.(type) {
		case nil:
			vars[fixtureFields[i].Name] = types.NullValue
		case time.Time:
			vars[fixtureFields[i].Name] = types.Timestamp{Time: v}
		default:
			vars[fixtureFields[i].Name] = v
		}
	}
	return vars
}

func fixtureEnv(t testing.TB) *Env {
	t.Helper()
	env, err := NewEnv(fixtureFields, nil)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

// pgIDs runs expr on PostgreSQL over table m and returns the ids kept.
func pgIDs(t *testing.T, db *sql.DB, env *Env, expr string, cols []string) []int64 {
	t.Helper()
	var args []any
	cond, err := env.Translate(expr, PostgreSQL, func(i int) string { return cols[i] },
		func(v any, _ Type) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) })
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
