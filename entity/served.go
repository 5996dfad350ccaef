package entity

// This file decides what a field's value is as a record shows it, so that
// a filter matches what is shown:
//
//   - On PostgreSQL a text field is read as text, as filters compare it.
//     A char(n) column then comes without the spaces that pad it, as
//     PostgreSQL itself compares char(n) values ('ab' = 'ab   '), and as
//     MySQL reads them; an enum or citext column comes as the text of its
//     value.
//   - On PostgreSQL a JSON field is read as its text, and an array as
//     the text of its JSON (to_json), which structured.go compacts.
//   - A number JSON cannot write (NaN, Infinity, -Infinity: PostgreSQL's
//     numeric, real and double precision hold them, SQLite's REAL the
//     infinities) is served as null (see appendNumber), and filters treat
//     it as null (filter.Field.NonFinite): == null finds it, an ordering
//     skips it on either side of a !. So on those engines a number field
//     may be null in output schemas and filters whatever its column's NOT
//     NULL says. orderBy sorts it as the database does (PostgreSQL puts
//     NaN after Infinity), on the bare column, so that an index keeps
//     serving the order. MySQL and MariaDB hold no such number.

// value is the SQL of f's value as served, for the qualified column.
func (t *table) value(f *Field) string { return t.valueOf(f, t.col(f)) }

// valueOf is the SQL of f's value as served, col being its column's SQL.
func (t *table) valueOf(f *Field, col string) string {
	if t.d.engine() != PostgreSQL {
		return col
	}
	switch f.Type {
	case Text, JSON:
		return "CAST(" + col + " AS text)"
	case Array:
		return "CAST(to_json(" + col + ") AS text)"
	}
	return col
}

// nonFinite says whether f's column may hold a number JSON cannot write.
func (t *table) nonFinite(f *Field) bool {
	return f.Type == Number && t.d.engine() != MySQL
}

// nullable says whether f's served value may be null: when its column
// is, or when it may hold a number JSON cannot write.
func (t *table) nullable(f *Field) bool { return f.Nullable || t.nonFinite(f) }
