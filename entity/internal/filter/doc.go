// Package filter translates a CEL filter expression, checked against an
// entity's filterable fields, into a parameterized SQL condition with the
// meaning CEL gives it on every engine, NULLs included.
//
//	env, err := filter.NewEnv(fields, nil) // once per entity
//	cond, err := env.Translate(`cost > 100 && name.contains("test")`, filter.PostgreSQL, column, bind)
//
// The expression is parsed and type-checked by cel-go against one
// variable per field, then our own walker over the checked AST writes the
// SQL. Column names come from the caller's column function; every value
// goes through bind, so nothing of the expression's text reaches the SQL.
//
// # What a filter may say
//
// Literals (int, uint, double, string, bool, null, timestamp("RFC 3339")
// and date("YYYY-MM-DD")); comparisons == != < <= > >= of a field with a
// literal, the field on either side, or of two fields of the same type
// (stock < reorder_level; an integer with a number, text with a UUID); && || ! and parentheses; field in
// [literal, ...]; contains, startsWith and endsWith of a literal on a
// text field; a boolean field alone. A text field may be written
// name.lowerAscii() in any of these for case-insensitive matching: as in
// cel-go's strings extension it lowers A to Z only (SQLite's lower,
// PostgreSQL's lower in the "C" collation, MySQL's bytes with A to Z
// replaced), and it is an error, not a null, for a null field.
//
// Everything else is refused with an [*Error] naming the construct:
// arithmetic, ?:, macros (has, exists, all, map, filter), matches, size,
// other functions, a date against a timestamp field.
// Integers and doubles compare with each other (cel-go's cross-type
// numeric comparisons), so cost > 100 works on a number field; == between
// them does not type-check in CEL and is refused with a hint.
//
// # NULLs
//
// A nullable field's variable is nullable in CEL, and the SQL keeps CEL's
// evaluation exactly, as the fixture tests prove against cel-go itself:
//
//   - x == null and x != null are IS NULL and IS NOT NULL.
//   - Equality is two-valued in CEL: null == 5 is false and null != 5 is
//     true, so x == v is written (col = ? AND col IS NOT NULL) and x != v
//     IS DISTINCT FROM (SQLite IS NOT, MySQL NOT (col <=> ?)); x in [...]
//     likewise, true for a null x only if the list holds null.
//   - An ordering (x > 5), a string match or a boolean field used alone is
//     an error in CEL when x is null. CEL's && and || absorb an error when
//     the other side decides (false && error is false, true || error is
//     true), ! keeps it, and a filter that ends in an error keeps no row.
//     That is SQL's three-valued logic with NULL for the error, so these
//     are written plainly: x > 5 keeps no null row, and neither does
//     !(x > 5).
//   - Two fields: an ordering (stock < reorder_level) keeps no row where
//     either is null; equality is null-safe, a null equal to a null
//     (IS NOT DISTINCT FROM, SQLite IS, MySQL <=>).
//
// # Text
//
// Strings compare by code point and case-sensitively on every engine,
// whatever the column's collation: SQLite compares with COLLATE BINARY
// and matches with instr and substr (its LIKE folds ASCII case);
// PostgreSQL compares the column as text (so an enum or citext column
// means what CEL's string does), ordering and matching in the "C"
// collation (strpos, starts_with, right; its equality is exact under any
// deterministic collation and keeps a text column's index); MariaDB and MySQL compare the binary UTF-8 of both sides,
// so that their default collations fold neither case, accents nor
// trailing spaces. LIKE is never used, so % and _ in a literal mean
// themselves. The empty string is contained in, starts and ends every
// string. A text literal cannot hold NUL, which PostgreSQL text cannot.
//
// # Numbers, dates, timestamps, UUIDs
//
// An integer field compared with a double compares as CEL does (as
// doubles, which is exact since only doubles below 2^53 in magnitude are
// accepted): the double becomes the integer bound it implies (stock < 2.5
// is stock < 3, stock == 2.5 is false). A number field compared with an
// integer binds the integer as a double, as CEL converts it. A uint
// literal beyond int64 gives a constant outcome. A number field whose
// column may hold NaN or an infinity ([Field.NonFinite]) has them null:
// x == null finds them, and an ordering is NULL for them (a guard beside
// the bare column, so that its index still serves the comparison). On
// PostgreSQL integers are bound as bigint and numbers as double
// precision, so a literal never overflows a narrower column.
//
// Timestamps are precise to the microsecond; a literal with nanoseconds is
// refused. A date field is a timestamp at UTC midnight in CEL, written
// date("2024-05-01"); compared with a later instant of a day it compares
// with that day as CEL would (due < timestamp("2024-05-01T10:00:00Z") is
// due <= 2024-05-01).
//
// A UUID field is a string in CEL holding the UUID's canonical lower-case
// text. On PostgreSQL a canonical literal compares with the uuid column
// natively (bound with type [UUID]); any other text, and string matches,
// compare the column's text.
//
// # Limits
//
// An expression is refused beyond [Limits]: its length, nesting,
// comparisons and in-list length. Checked expressions are cached, at
// most 256 per [Env], so a filter repeated while paging is parsed once.
package filter
