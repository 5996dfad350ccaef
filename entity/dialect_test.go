package entity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/entity/internal/dbtest"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		d        dialect
		in, want string
	}{
		{sqliteDialect{}, `products`, `"products"`},
		{pgDialect{}, `a"b`, `"a""b"`},
		{&mysqlDialect{}, "a`b", "`a``b`"},
		{&mysqlDialect{}, `a"b`, "`a\"b`"},
	}
	for _, tt := range tests {
		if got := tt.d.quote(tt.in); got != tt.want {
			t.Errorf("%s quote(%q) = %q; want %q", tt.d.engine(), tt.in, got, tt.want)
		}
	}
}

// FuzzQuote checks that a quoted identifier is one token: it starts and
// ends with the quote, and every quote inside is doubled, so unquoting
// gives the name back; and that the engine reads it as that name.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"products", `a"b`, "a`b", `"; DROP TABLE x; --`, "ünï", "", `""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, q := range []byte{'"', '`'} {
			got := quoteWith(name, q)
			if got[0] != q || got[len(got)-1] != q {
				t.Fatalf("quoteWith(%q) = %q: not enclosed", name, got)
			}
			inner := got[1 : len(got)-1]
			if back := strings.ReplaceAll(inner, string([]byte{q, q}), string(q)); back != name {
				t.Fatalf("quoteWith(%q) = %q unquotes to %q", name, got, back)
			}
			if strings.Count(inner, string(q))%2 != 0 {
				t.Fatalf("quoteWith(%q) = %q: an undoubled quote", name, got)
			}
		}
	})
}

func TestQuoteOnSQLite(t *testing.T) {
	db := dbtest.SQLite(t)
	d := sqliteDialect{}
	for _, name := range []string{`a"b`, `x; DROP TABLE t; --`, "sel`ect", "select", "ü", `'`} {
		if _, err := db.Exec("CREATE TABLE " + d.quote(name) + " (" + d.quote(name) + " INTEGER)"); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		var got string
		if err := db.QueryRow("SELECT name FROM sqlite_schema WHERE name = ?", name).Scan(&got); err != nil || got != name {
			t.Errorf("table %q created as %q, %v", name, got, err)
		}
	}
}

type stateErr string

func (e stateErr) Error() string    { return "state " + string(e) }
func (e stateErr) SQLState() string { return string(e) }

type codeErr int

func (e codeErr) Error() string { return fmt.Sprintf("code %d", int(e)) }
func (e codeErr) Code() int     { return int(e) }

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want violation
	}{
		{stateErr("23505"), uniqueViolation},
		{fmt.Errorf("wrapped: %w", stateErr("23503")), foreignKeyViolation},
		{stateErr("23502"), notNullViolation},
		{stateErr("23514"), checkViolation},
		{stateErr("57014"), timeoutHit},
		{stateErr("22001"), badValue},
		{stateErr("42P01"), notViolation},
		{codeErr(2067), uniqueViolation},
		{codeErr(1555), uniqueViolation},
		{codeErr(787), foreignKeyViolation},
		{codeErr(1299), notNullViolation},
		{codeErr(275), checkViolation},
		{codeErr(1), notViolation},
		{errors.New("Error 1062 (23000): Duplicate entry 'A-1' for key 'sku'"), uniqueViolation},
		{errors.New("Error 1452 (23000): Cannot add or update a child row"), foreignKeyViolation},
		{errors.New("Error 1451 (23000): Cannot delete or update a parent row"), foreignKeyViolation},
		{errors.New("Error 1048 (23000): Column 'name' cannot be null"), notNullViolation},
		{errors.New("Error 3819 (HY000): Check constraint 'c' is violated."), checkViolation},
		{errors.New("Error 4025 (23000): CONSTRAINT `products.cost` failed"), checkViolation},
		{errors.New("Error 1969 (70100): Query execution was interrupted (max_statement_time exceeded)"), timeoutHit},
		{stateErr("40P01"), busyHit},
		{stateErr("40001"), busyHit},
		{stateErr("55P03"), busyHit},
		{codeErr(5), busyHit},   // SQLITE_BUSY
		{codeErr(517), busyHit}, // SQLITE_BUSY_SNAPSHOT
		{codeErr(6), busyHit},   // SQLITE_LOCKED
		{errors.New("Error 1213 (40001): Deadlock found when trying to get lock"), busyHit},
		{errors.New("Error 1205 (HY000): Lock wait timeout exceeded"), busyHit},
		{stateErr("53300"), connLimit},
		{errors.New("Error 1040 (08004): Too many connections"), connLimit},
		{errors.New("Error 1226 (42000): User 'app' has exceeded the 'max_user_connections' resource"), connLimit},
		{errors.New("Error: 1062"), notViolation},
		{errors.New("something else"), notViolation},
	}
	for _, tt := range tests {
		if got := classify(tt.err); got != tt.want {
			t.Errorf("classify(%v) = %d; want %d", tt.err, got, tt.want)
		}
	}
}

func TestMentions(t *testing.T) {
	tests := []struct {
		msg, col string
		loose    bool
		want     bool
	}{
		{"UNIQUE constraint failed: products.sku", "sku", false, true},
		{`null value in column "name" of relation "products"`, "name", false, true},
		{`violates check constraint "products_cost_check"`, "cost", false, false},
		{`violates check constraint "products_cost_check"`, "cost", true, true},
		{"Duplicate entry 'A-1' for key 'skus'", "sku", true, false},
	}
	for _, tt := range tests {
		if got := mentions(tt.msg, tt.col, tt.loose); got != tt.want {
			t.Errorf("mentions(%q, %q, %v) = %v", tt.msg, tt.col, tt.loose, got)
		}
	}
}

func TestEncodeAndAppend(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	enc, err := encode(SQLite, Timestamp, ts)
	if err != nil || enc != "2026-01-02T02:04:05.123456Z" {
		t.Errorf("SQLite timestamp = %v, %v", enc, err)
	}
	if enc, _ := encode(PostgreSQL, Timestamp, "2026-01-02T03:04:05+01:00"); enc.(time.Time).Location() != time.UTC {
		t.Errorf("PostgreSQL timestamp not UTC: %v", enc)
	}
	if enc, _ := encode(MySQL, Boolean, true); enc != int64(1) {
		t.Errorf("MySQL true = %v", enc)
	}
	if enc, _ := encode(PostgreSQL, Number, "x"); enc != nil {
		t.Errorf("a string number encoded: %v", enc)
	}
	if _, err := encode(SQLite, Integer, 1.5); err == nil {
		t.Error("1.5 accepted as an integer")
	}
	tests := []struct {
		t    Type
		v    any
		want string
	}{
		{Number, []byte("12.50"), "12.50"},
		{Number, "1e400", "1e400"},
		{Number, []byte("NaN"), "null"}, // JSON has no NaN: served as null
		{Number, "-Infinity", "null"},
		{Integer, int64(7), "7"},
		{Boolean, int64(0), "false"},
		{Boolean, []byte("1"), "true"},
		{Timestamp, "2026-01-02 03:04:05", `"2026-01-02T03:04:05Z"`},
		{Timestamp, []byte("2026-01-02 03:04:05.5"), `"2026-01-02T03:04:05.5Z"`},
		{Timestamp, "not a time", `"not a time"`},
		{Date, "2026-01-02", `"2026-01-02"`},
		{Date, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), `"2026-01-02"`},
		{UUID, []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0}, `"12345678-9abc-def0-1234-56789abcdef0"`},
		{Text, "a\"b\\\n\x01\u2028\xff", `"a\"b\\\n\u0001\u2028\ufffd"`},
		{Text, nil, "null"},
	}
	for _, tt := range tests {
		if got := string(appendValue(nil, tt.t, tt.v)); got != tt.want {
			t.Errorf("appendValue(%d, %#v) = %s; want %s", tt.t, tt.v, got, tt.want)
		}
	}
}

func TestDetectEngine(t *testing.T) {
	for _, e := range dbtest.Engines {
		t.Run(e.Name, func(t *testing.T) {
			got, err := detectEngine(e.Open(t))
			if err != nil || string(got) != e.Name {
				t.Errorf("detectEngine = %q, %v", got, err)
			}
		})
	}
}

// FuzzAppendString checks the records' string encoding against
// encoding/json: valid JSON that decodes to the same text (invalid UTF-8
// becoming U+FFFD, as encoding/json does).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\\", "\x00\x1f", "\u2028\u2029", "\xff\xfe", "é🙂", "</script>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: not JSON: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("appendString(%q) decodes to %q; encoding/json's to %q", s, back, wantBack)
		}
	})
}

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
