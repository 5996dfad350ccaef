package entity

import (
	"slices"
	"testing"

	"github.com/ferry-mcp/ferry/entity/internal/sqltext"
)

// TestReadCheck reads CHECK clauses as each engine's catalog writes them.
func TestReadCheck(t *testing.T) {
	cases := []struct {
		clause string
		d      sqltext.Dialect
		column string
		enum   []string
		json   bool
	}{
		{`CHECK ((status = ANY (ARRAY['new'::text, 'open'::text])))`, sqltext.PostgreSQL, "status", []string{"new", "open"}, false},
		{`CHECK (((status)::text = ANY ((ARRAY['new'::character varying, 'it''s'::character varying])::text[])))`, sqltext.PostgreSQL, "status", []string{"new", "it's"}, false},
		{`CHECK ((status = 'only'::text))`, sqltext.PostgreSQL, "status", []string{"only"}, false},
		{`CHECK (("Odd Name" = ANY (ARRAY['a'::text])))`, sqltext.PostgreSQL, "Odd Name", []string{"a"}, false},
		{"`status` in ('a','b','c')", sqltext.MySQL, "status", []string{"a", "b", "c"}, false},
		{"(`status` in (_utf8mb4'a',_utf8mb4'b'))", sqltext.MySQL, "status", []string{"a", "b"}, false},
		{"json_valid(`attrs`)", sqltext.MySQL, "attrs", nil, true},
		{`(status IN ('draft', 'active'))`, sqltext.SQLite, "status", []string{"draft", "active"}, false},
		{`(json_valid(meta))`, sqltext.SQLite, "meta", nil, true},
		{`([my col] in ('x'))`, sqltext.SQLite, "my col", []string{"x"}, false},
	}
	for _, c := range cases {
		f, ok := readCheck(c.clause, c.d)
		if !ok || f.column != c.column || !slices.Equal(f.enum, c.enum) || f.json != c.json {
			t.Errorf("%s: %+v %v; want %s %v json=%v", c.clause, f, ok, c.column, c.enum, c.json)
		}
	}
	for _, clause := range []string{
		`CHECK ((cost >= (0)::numeric))`,
		`CHECK (((status = ANY (ARRAY['a'::text])) AND (length(status) > 0)))`,
		`CHECK ((NOT (status = ANY (ARRAY['a'::text]))))`,
		`CHECK ((status <> ALL (ARRAY['a'::text])))`,
		`CHECK ((a = b))`,
		`CHECK ((status = ANY (ARRAY[other, 'a'::text])))`,
		`CHECK ((status IN ('a') OR status IS NULL))`,
	} {
		if f, ok := readCheck(clause, sqltext.PostgreSQL); ok {
			t.Errorf("%s: read as %+v; want it left alone", clause, f)
		}
	}
	if f, ok := readCheck("`s` in "+` ('it\'s','a\\b','c\%')`, sqltext.MySQL); !ok || !slices.Equal(f.enum, []string{"it's", `a\b`, `c\%`}) {
		t.Errorf("MySQL's escapes: read as %+v %v", f, ok)
	}
}

// TestCheckClauses finds a SQLite table's CHECK clauses, not a CHECK in a
// string or a comment.
func TestCheckClauses(t *testing.T) {
	got := checkClauses(`CREATE TABLE t (a TEXT CHECK (a IN ('x', ')')), -- CHECK (no)
		b TEXT DEFAULT 'CHECK (b)', CONSTRAINT c CHECK ((b = 'y')))`)
	want := []string{`(a IN ('x', ')'))`, `((b = 'y'))`}
	if !slices.Equal(got, want) {
		t.Errorf("checkClauses: %q; want %q", got, want)
	}
}
