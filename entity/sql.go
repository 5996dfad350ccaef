package entity

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
)

// query builds one statement: SQL text from the model, values bound.
type query struct {
	d    dialect
	sql  strings.Builder
	args []any
}

// bind appends an argument and returns its placeholder.
func (q *query) bind(v any) string {
	q.args = append(q.args, v)
	return q.d.placeholder(len(q.args))
}

func (q *query) add(parts ...string) {
	for _, p := range parts {
		q.sql.WriteString(p)
	}
}

// where is a conjunction of conditions being built.
type where struct{ conds []string }

func (w *where) and(c string) {
	if c != "" {
		w.conds = append(w.conds, "("+c+")")
	}
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// equals returns the condition col = v, with v bound, exact for text on
// every engine, whatever the column's collation: MySQL's collations fold
// case and trailing spaces, SQLite's NOCASE folds ASCII case and a
// nondeterministic PostgreSQL collation may fold anything. So the
// column's own comparison lets its index find the candidates and a binary
// one keeps the exact match. Without it a scope's tenant "A" would read
// tenant "a"'s rows, and a key would name another's record.
//
// On PostgreSQL a text field is compared as text, so that an enum column
// given a label it lacks matches nothing instead of failing (a text or
// varchar column keeps its index).
func (t *table) equals(q *query, f *Field, col string, v any) string {
	text := f.Type == Text || f.Type == UUID
	switch {
	case t.d.engine() == MySQL && text:
		return col + " = " + q.bind(v) + " AND CAST(" + col + " AS BINARY) = CAST(" + q.bind(v) + " AS BINARY)"
	case t.d.engine() == PostgreSQL && f.Type == Text:
		return "CAST(" + col + " AS text) = " + q.bind(v) + " AND CAST(" + col + ` AS text) COLLATE "C" = ` + q.bind(v)
	case t.d.engine() == SQLite && text:
		return col + " = " + q.bind(v) + " AND " + col + " = " + q.bind(v) + " COLLATE BINARY"
	}
	return col + " = " + q.bind(v)
}

// scanRows reads rows of the entity's columns into JSON records appended
// to b, at most limit of them, and no more than keep b within maxBytes (0
// for no bound), though always one. It returns the records read and
// whether rows remained.
func (t *table) scanRows(rows *sql.Rows, b []byte, limit, maxBytes int) ([]byte, int, bool, error) {
	vals, ptrs := scanTargets(len(t.e.Fields))
	n := 0
	for rows.Next() {
		if n == limit {
			return b, n, true, rows.Close()
		}
		if err := rows.Scan(ptrs...); err != nil {
			return b, n, false, err
		}
		before := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = t.appendRecord(b, vals)
		if maxBytes > 0 && n > 0 && len(b) > maxBytes {
			return b[:before], n, true, rows.Close()
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return b, n, false, err
	}
	return b, n, false, rows.Close()
}

// scanTargets is n values and, for rows.Scan, pointers to them.
func scanTargets(n int) (vals, ptrs []any) {
	vals, ptrs = make([]any, n), make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	return vals, ptrs
}

// appendRecord appends one record's JSON object, fields in order, their
// member names quoted once, at registration.
func (t *table) appendRecord(b []byte, vals []any) []byte {
	b = append(b, '{')
	for i, f := range t.e.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t.members[i]...)
		b = appendValue(b, f.Type, vals[i])
	}
	return append(b, '}')
}

// selectOne reads the record q's conditions find: its JSON, its raw key
// value, or found false.
func (t *table) selectOne(ctx context.Context, tx Querier, w *where, q *query) (rec []byte, key any, found bool, err error) {
	q.add("SELECT ", t.cols, " FROM ", t.from, w.String(), t.d.paging(q.bind(int64(1)), q.bind(int64(0))))
	rows, err := tx.QueryContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...)
	if err != nil {
		return nil, nil, false, err
	}
	defer rows.Close()
	vals, ptrs := scanTargets(len(t.e.Fields))
	if !rows.Next() {
		return nil, nil, false, rows.Err()
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, nil, false, err
	}
	if t.key != nil {
		key = vals[slices.Index(t.e.Fields, t.key)]
	}
	return t.appendRecord(nil, vals), key, true, rows.Close()
}

func itoa(n int) string { return strconv.Itoa(n) }
