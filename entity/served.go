package entity

// This file decides what a field's value is, as one SQL expression that
// lists serve, filters compare and orderBy sorts, so that the three never
// disagree: what a record shows is what a filter matches.
//
//   - On PostgreSQL a text field is read as text. A char(n) column then
//     comes without the spaces that pad it, as PostgreSQL itself compares
//     char(n) values ('ab' = 'ab   '), and as MySQL reads them; an enum
//     or citext column comes as the text of its value.
//   - A number JSON cannot write (NaN, Infinity, -Infinity: PostgreSQL's
//     numeric, real and double precision hold them, SQLite's REAL holds
//     the infinities) is NULL: served as null, found by == null, skipped
//     by orderings as a null is, sorted with the nulls. So on those
//     engines a number field may be null in output schemas and filters
//     whatever its column's NOT NULL says. MySQL and MariaDB hold no such
//     number.

// value is the SQL of f's value as served, for the qualified column.
func (t *table) value(f *Field) string { return t.valueOf(f, t.col(f)) }

// valueOf is the SQL of f's value as served, col being its column's SQL.
func (t *table) valueOf(f *Field, col string) string {
	switch {
	case t.d.engine() == PostgreSQL && f.Type == Text:
		return "CAST(" + col + " AS text)"
	case t.d.engine() == PostgreSQL && f.Type == Number:
		// As text, so that any number type (and numeric on versions
		// before 14, which has no infinity) is told the same way.
		return "CASE WHEN CAST(" + col + " AS text) IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE " + col + " END"
	case t.d.engine() == SQLite && f.Type == Number:
		// SQLite stores a NaN as NULL already; 9e999 is its infinity.
		return "CASE WHEN abs(" + col + ") = 9e999 THEN NULL ELSE " + col + " END"
	}
	return col
}

// nullable says whether f's served value may be null: when its column
// is, or when it is a number on an engine that holds numbers JSON cannot
// write.
func (t *table) nullable(f *Field) bool {
	return f.Nullable || f.Type == Number && t.d.engine() != MySQL
}
