package filter

import (
	"fmt"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
)

// This file compares two fields (stock < reorder_level), with CEL's
// meaning on every engine:
//
//   - An ordering of a null is an error in CEL, so a null on either side
//     keeps no row, on either side of a !: SQL's NULL, written plainly.
//   - Equality is two-valued: a null equals a null and nothing else. The
//     engines' null-safe equality says exactly that (IS NOT DISTINCT
//     FROM, SQLite's IS, MySQL's <=>). A null's lowerAscii() is an
//     error, not a null, so then the comparison is NULL.
//   - A number that JSON cannot write (NaN, the infinities) is null, as
//     everywhere else: such a side is read as NULL where it holds one.
//   - Text compares by code point on both sides, as with a literal.
//
// The types must be those CEL compares: the same type, an integer with a
// number (CEL's cross-type orderings; == between them does not
// type-check), or text with a UUID (compared as text). A date with a
// timestamp is refused: CEL compares the date's UTC midnight, which the
// engines' own conversions do not all give.

// compareFields writes a op b for two fields.
func (t *translator) compareFields(x ast.Expr, op string, a, b target) error {
	if err := t.count(x); err != nil {
		return err
	}
	if !comparable(a.f.Type, b.f.Type) {
		return t.refuse(x, fmt.Sprintf("%s compares %s (%s) with %s (%s)", opName(op), a.name(), a.f.Type, b.name(), b.f.Type),
			"compare fields of the same type; an integer and a number compare with < <= > >=")
	}
	textual := a.f.Type == Text || b.f.Type == Text || (a.f.Type == UUID && t.engine != PostgreSQL)
	lhs, rhs := t.fieldSide(a, textual), t.fieldSide(b, textual)
	if t.engine == PostgreSQL && textual {
		lhs, rhs = lhs+` COLLATE "C"`, rhs+` COLLATE "C"`
	}
	if t.engine == SQLite && textual {
		lhs += " COLLATE BINARY"
	}
	equality := op == operators.Equals || op == operators.NotEquals
	if !equality || (!a.nullable() && !b.nullable()) {
		fmt.Fprintf(&t.sql, "%s %s %s", lhs, sqlOperator(op), rhs)
		return nil
	}
	// A lowered null is CEL's error: NULL, whatever the other side.
	var errs []string
	for _, r := range []target{a, b} {
		if r.lower && r.f.Nullable {
			errs = append(errs, r.col+" IS NULL")
		}
	}
	if len(errs) > 0 {
		t.sql.WriteString("CASE WHEN ")
		for i, e := range errs {
			if i > 0 {
				t.sql.WriteString(" OR ")
			}
			t.sql.WriteString(e)
		}
		t.sql.WriteString(" THEN NULL ELSE ")
	}
	if op == operators.Equals {
		t.notDistinct(lhs, rhs)
	} else {
		t.distinct(lhs, rhs)
	}
	if len(errs) > 0 {
		t.sql.WriteString(" END")
	}
	return nil
}

// comparable says whether CEL compares fields of types a and b.
func comparable(a, b Type) bool {
	switch {
	case a == b:
		return true
	case (a == Integer && b == Number) || (a == Number && b == Integer):
		return true
	}
	return (a == Text && b == UUID) || (a == UUID && b == Text)
}

// nullable says whether r's value may be null: a null field, or a
// number that may not be finite.
func (r target) nullable() bool { return r.f.Nullable || r.f.NonFinite }

// fieldSide is r's value as one side of a comparison with another
// field: its text as the engine compares text, or its column, a number
// that may not be finite read as NULL when it is not.
func (t *translator) fieldSide(r target, textual bool) string {
	switch {
	case textual:
		return t.text(r)
	case r.f.NonFinite:
		return "CASE WHEN " + t.nonFinite(r.col) + " THEN NULL ELSE " + r.col + " END"
	}
	return r.col
}

// notDistinct writes lhs == rhs, true when both are null.
func (t *translator) notDistinct(lhs, rhs string) {
	switch t.engine {
	case SQLite:
		fmt.Fprintf(&t.sql, "%s IS %s", lhs, rhs)
	case MySQL:
		fmt.Fprintf(&t.sql, "%s <=> %s", lhs, rhs)
	default:
		fmt.Fprintf(&t.sql, "%s IS NOT DISTINCT FROM %s", lhs, rhs)
	}
}
