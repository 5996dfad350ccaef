package filter

import (
	"fmt"
	"strings"
)

// The SQL below is written so that every comparison means what CEL means
// on each engine:
//
//   - text compares by code point and case-sensitively: SQLite with the
//     BINARY collation (whatever the column declares), PostgreSQL in the
//     "C" collation (equality too, which nondeterministic collations
//     fold), MariaDB and MySQL as the binary UTF-8 of
//     both sides, so that neither case, accents nor trailing spaces fold;
//   - PostgreSQL gets its numbers as bigint or double precision, so that a
//     literal never overflows a narrower column's type (an SQL error);
//   - a UUID field on PostgreSQL is compared natively with a canonical
//     UUID literal (which keeps its index) and as text otherwise.

// textual reports whether field f is compared as text on this engine.
func (t *translator) textual(f Field, o operand) bool {
	if f.Type == Text {
		return true
	}
	return f.Type == UUID && (o.asText || t.engine != PostgreSQL)
}

// sides returns the SQL of r and of the bound value of o.
func (t *translator) sides(r target, o operand) (lhs, rhs string) {
	ph := t.bind(o.v, o.t)
	if !t.textual(r.f, o) {
		switch {
		case t.engine == PostgreSQL && r.f.Type == Integer:
			return r.col, "CAST(" + ph + " AS bigint)"
		case t.engine == PostgreSQL && r.f.Type == Number:
			return r.col, "CAST(" + ph + " AS double precision)"
		}
		return r.col, ph
	}
	text := t.text(r)
	switch t.engine {
	case SQLite:
		return text + " COLLATE BINARY", ph
	case MySQL:
		return text, "CAST(" + ph + " AS BINARY)"
	}
	// "C" for equality too: under a nondeterministic collation (an ICU
	// one that folds case) = is not CEL's ==. It keeps an index on the
	// column from serving a text equality of a filter; the tools' own key
	// lookups do not go through here.
	return text + ` COLLATE "C"`, ph
}

// text is r as the engine compares text: SQLite's column, PostgreSQL's
// as text, MySQL's bytes of its UTF-8, lowered
// ASCII-only for lowerAscii() (SQLite's lower and PostgreSQL's in the "C"
// collation touch only A to Z).
func (t *translator) text(r target) string {
	switch t.engine {
	case SQLite:
		if r.lower {
			return "lower(" + r.col + ")"
		}
		return r.col
	case MySQL:
		if r.lower {
			return lowerBinary(binaryText(r.col))
		}
		return binaryText(r.col)
	}
	// As text, a uuid, an enum or a citext column compares as CEL's
	// string does (and an enum accepts a label it does not have); for
	// text and varchar the cast changes nothing and keeps the index.
	col := "CAST(" + r.col + " AS text)"
	if r.lower {
		col = "lower(" + col + ` COLLATE "C")`
	}
	return col
}

// lowerBinary lowers A to Z in MySQL's binary string b, on which LOWER
// does nothing (and on text it lowers more than ASCII).
func lowerBinary(b string) string {
	var s strings.Builder
	s.WriteString(strings.Repeat("REPLACE(", 26))
	s.WriteString(b)
	for c := 'A'; c <= 'Z'; c++ {
		fmt.Fprintf(&s, ", CHAR(%d), CHAR(%d))", c, c+'a'-'A')
	}
	return s.String()
}

// distinct writes lhs != rhs for a nullable column, true where it is null.
func (t *translator) distinct(lhs, rhs string) {
	switch t.engine {
	case SQLite:
		fmt.Fprintf(&t.sql, "%s IS NOT %s", lhs, rhs)
	case MySQL:
		fmt.Fprintf(&t.sql, "NOT (%s <=> %s)", lhs, rhs)
	default:
		fmt.Fprintf(&t.sql, "%s IS DISTINCT FROM %s", lhs, rhs)
	}
}

// binaryText is MySQL's column as the bytes of its UTF-8 text.
func binaryText(col string) string {
	return "CAST(CONVERT(" + col + " USING utf8mb4) AS BINARY)"
}

// matchText writes r.fn(s) for a non-empty s: contains, startsWith or
// endsWith, case-sensitive and by code point.
func (t *translator) matchText(r target, fn, s string) {
	switch t.engine {
	case SQLite:
		t.matchSQLite(t.text(r), fn, s)
	case MySQL:
		t.matchMySQL(t.text(r), fn, s)
	default:
		t.matchPostgreSQL(t.text(r)+` COLLATE "C"`, fn, s)
	}
}

// matchSQLite uses instr and substr, which count characters and compare
// bytes; LIKE and GLOB would fold case or read the literal as a pattern.
func (t *translator) matchSQLite(col, fn, s string) {
	n := int64(len([]rune(s)))
	switch fn {
	case "contains":
		fmt.Fprintf(&t.sql, "instr(%s, %s) > 0", col, t.bind(s, Text))
	case "startsWith":
		fmt.Fprintf(&t.sql, "substr(%s, 1, %s) = %s COLLATE BINARY", col, t.bind(n, Integer), t.bind(s, Text))
	default:
		fmt.Fprintf(&t.sql, "substr(%s, %s) = %s COLLATE BINARY", col, t.bind(-n, Integer), t.bind(s, Text))
	}
}

// matchPostgreSQL uses strpos, starts_with and right, never LIKE.
func (t *translator) matchPostgreSQL(col, fn, s string) {
	switch fn {
	case "contains":
		fmt.Fprintf(&t.sql, "strpos(%s, %s) > 0", col, t.bind(s, Text))
	case "startsWith":
		fmt.Fprintf(&t.sql, "starts_with(%s, %s)", col, t.bind(s, Text))
	default:
		n := int64(len([]rune(s)))
		fmt.Fprintf(&t.sql, "right(%s, CAST(%s AS integer)) = %s", col, t.bind(n, Integer), t.bind(s, Text))
	}
}

// matchMySQL compares bytes: LEFT and RIGHT of a binary string count
// bytes, and UTF-8 makes a byte match a character match.
func (t *translator) matchMySQL(b, fn, s string) {
	n := int64(len(s))
	switch fn {
	case "contains":
		fmt.Fprintf(&t.sql, "LOCATE(CAST(%s AS BINARY), %s) > 0", t.bind(s, Text), b)
	case "startsWith":
		fmt.Fprintf(&t.sql, "LEFT(%s, %s) = CAST(%s AS BINARY)", b, t.bind(n, Integer), t.bind(s, Text))
	default:
		fmt.Fprintf(&t.sql, "RIGHT(%s, %s) = CAST(%s AS BINARY)", b, t.bind(n, Integer), t.bind(s, Text))
	}
}

// nonFinite is the condition that col, a number column, holds NaN or an
// infinity: compared as text on PostgreSQL, which tells every number
// type's (numeric's too, which a cast to double precision could
// overflow); SQLite stores a NaN as NULL, and 9e999 is its infinity.
func (t *translator) nonFinite(col string) string {
	if t.engine == SQLite {
		return "abs(" + col + ") = 9e999"
	}
	return "CAST(" + col + " AS text) IN ('NaN', 'Infinity', '-Infinity')"
}

// finiteOrdering writes col op rhs for a column that may hold NaN or an
// infinity, null (as CEL's error for a null) when it does, whatever op
// and on either side of a NOT, while the column stays bare so that its
// index serves the comparison:
//
//	(col op rhs OR col = <what op leaves out>) AND (col is finite OR NULL)
//
// The first part is true for every non-finite value (an ordering below
// leaves out +Infinity and PostgreSQL's NaN, which sorts above it; one
// above leaves out -Infinity), so the whole is NULL for them, and is
// col op rhs for a finite one.
func (t *translator) finiteOrdering(col, op, rhs string, below bool) {
	inf, ninf, nan := "CAST('Infinity' AS double precision)", "CAST('-Infinity' AS double precision)", "CAST('NaN' AS double precision)"
	if t.engine == SQLite {
		inf, ninf = "9e999", "-9e999"
	}
	out := col + " = " + ninf
	switch {
	case below && t.engine == SQLite:
		out = col + " = " + inf
	case below:
		out = col + " IN (" + inf + ", " + nan + ")"
	}
	fmt.Fprintf(&t.sql, "((%s %s %s OR %s) AND (%s > %s AND %s < %s OR NULL))", col, op, rhs, out, col, ninf, col, inf)
}
