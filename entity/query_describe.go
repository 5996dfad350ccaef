package entity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// queryCol is a result column of a read query.
type queryCol struct {
	name   string
	typ    Type   // zero: served as the engine's value says (see appendAny)
	member []byte // its JSON member name and colon
}

// preparer is a Querier that prepares statements: *sql.DB, *sql.Tx and
// *sql.Conn.
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// describeParams gives every parameter of p its type and checks those
// declared: on PostgreSQL the engine's inferred types (a declared type it
// disagrees with stops start-up); elsewhere the declarations, which the
// engine's prepare then checks with the statement.
func (s *Set) describeParams(ctx context.Context, q *Query, p *preparedSQL) ([]QueryParam, error) {
	params := make([]QueryParam, len(p.names))
	for i, n := range p.names {
		params[i].Name = n
		if j := slices.IndexFunc(q.Params, func(d QueryParam) bool { return d.Name == n }); j >= 0 {
			params[i] = q.Params[j]
		}
	}
	for _, d := range q.Params {
		if !slices.Contains(p.names, d.Name) {
			return nil, fmt.Errorf("%s@param %s: the statement does not use @%s", q.where(), d.Name, d.Name)
		}
	}
	var inferred []string
	var err error
	if s.d.engine() == PostgreSQL {
		inferred, err = s.pgParamTypes(ctx, p.text)
	} else if pr, ok := s.db.(preparer); ok {
		var st *sql.Stmt
		if st, err = pr.PrepareContext(ctx, p.text); err == nil {
			err = st.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%sthe database cannot prepare the statement: %w", q.where(), err)
	}
	for i := range params {
		pp := &params[i]
		if i < len(inferred) {
			t := dbType(PostgreSQL, inferred[i])
			switch {
			case pp.Type == 0 && t == 0:
				return nil, fmt.Errorf("%s@%s: PostgreSQL infers type %s, which no parameter type stands for: declare it (-- @param %s TYPE) and cast in SQL", q.where(), pp.Name, inferred[i], pp.Name)
			case pp.Type == 0:
				pp.Type = t
			case t != 0 && t != pp.Type && !(t == Number && pp.Type == Integer):
				return nil, fmt.Errorf("%s@%s: declared %s, but PostgreSQL takes it as %s", q.where(), pp.Name, pp.Type, inferred[i])
			}
		}
		if pp.Type == 0 {
			return nil, fmt.Errorf("%s@%s: declare its type (-- @param %s TYPE): %s cannot infer it", q.where(), pp.Name, pp.Name, s.d.engine())
		}
	}
	return params, nil
}

// pgParamTypes prepares the statement on one connection and reads the
// types PostgreSQL inferred for its parameters, in order.
func (s *Set) pgParamTypes(ctx context.Context, text string) ([]string, error) {
	var conn Querier
	switch db := s.db.(type) {
	case *sql.DB:
		c, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		conn = c
	case *sql.Conn:
		conn = db
	default:
		// In the caller's transaction, a statement that fails to prepare
		// would end it: the declarations must do.
		return nil, nil
	}
	const name = "ferry_describe_query"
	// PREPARE takes no parameters: the statement is the operator's, the
	// name ours.
	if _, err := conn.ExecContext(ctx, "PREPARE "+name+" AS "+text); err != nil {
		return nil, err
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), "DEALLOCATE "+name) }()
	rows, err := conn.QueryContext(ctx, "SELECT u.t::text FROM pg_prepared_statements, unnest(parameter_types) WITH ORDINALITY AS u(t, n) WHERE name = $1 ORDER BY u.n", name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// describeColumns reads a read query's result columns by running it
// with LIMIT 0 (or, when it has a LIMIT of its own, inside a query that
// keeps no row), in a read-only transaction, with every parameter null.
func (s *Set) describeColumns(ctx context.Context, q *Query, p *preparedSQL) ([]queryCol, error) {
	var cols []queryCol
	t := s.queryTable(q)
	err := t.run(ctx, true, func(ctx context.Context, tx Querier) error {
		text := p.text + " LIMIT 0"
		if p.class.Limited {
			text = "SELECT * FROM (" + p.text + ") AS ferry_q WHERE 1 = 0"
		}
		rows, err := tx.QueryContext(ctx, text, make([]any, len(p.bind))...)
		if err != nil {
			return err
		}
		defer rows.Close()
		types, err := rows.ColumnTypes()
		if err != nil {
			return err
		}
		for _, ct := range types {
			cols = append(cols, queryCol{name: ct.Name(), typ: dbType(s.d.engine(), ct.DatabaseTypeName())})
		}
		return rows.Close()
	})
	if err != nil {
		var de *dbErr
		if errors.As(err, &de) {
			err = de.err
		}
		return nil, fmt.Errorf("%sthe database cannot describe the statement's columns: %w", q.where(), err)
	}
	seen := map[string]bool{}
	for i, c := range cols {
		if c.name == "" || seen[c.name] {
			return nil, fmt.Errorf("%sresult column %d is named %q, empty or as another: give each column a name of its own (AS name)", q.where(), i+1, c.name)
		}
		seen[c.name] = true
		cols[i].member = append(appendString(nil, c.name), ':')
	}
	for _, d := range q.Columns {
		i := slices.IndexFunc(cols, func(c queryCol) bool { return c.name == d.Name })
		if i < 0 {
			return nil, fmt.Errorf("%s@column %s: the statement has no such column", q.where(), d.Name)
		}
		cols[i].typ = d.Type
	}
	return cols, nil
}

// dbType maps a type name the engine gives (a column's, or a parameter's
// PostgreSQL infers) to a field type, or zero when none fits.
func dbType(e Engine, name string) Type {
	n := strings.ToUpper(strings.TrimSpace(name))
	switch n {
	case "INT2", "INT4", "INT8", "SMALLINT", "INTEGER", "BIGINT", "INT", "TINYINT", "MEDIUMINT",
		"UNSIGNED INT", "UNSIGNED BIGINT", "UNSIGNED SMALLINT", "UNSIGNED TINYINT", "UNSIGNED MEDIUMINT", "YEAR":
		return Integer
	case "NUMERIC", "DECIMAL", "FLOAT4", "FLOAT8", "REAL", "DOUBLE PRECISION", "DOUBLE", "FLOAT":
		return Number
	case "BOOL", "BOOLEAN":
		return Boolean
	case "TEXT", "VARCHAR", "BPCHAR", "NAME", "CHARACTER VARYING", "CHARACTER", "CHAR", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "CITEXT":
		return Text
	case "TIMESTAMPTZ", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP WITHOUT TIME ZONE", "DATETIME":
		return Timestamp
	case "DATE":
		return Date
	case "UUID":
		return UUID
	case "JSON", "JSONB":
		return JSON
	}
	if e == SQLite && n != "" {
		// SQLite's declared types, read by affinity.
		switch {
		case strings.Contains(n, "INT"):
			return Integer
		case strings.Contains(n, "CHAR"), strings.Contains(n, "CLOB"), strings.Contains(n, "TEXT"):
			return Text
		case strings.Contains(n, "REAL"), strings.Contains(n, "FLOA"), strings.Contains(n, "DOUB"), strings.Contains(n, "DEC"):
			return Number
		}
	}
	if strings.HasPrefix(n, "NUMERIC") || strings.HasPrefix(n, "DECIMAL") {
		return Number
	}
	return 0
}
