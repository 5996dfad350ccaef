package entity

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/sqltext"
)

// introspectSQLite reads a schema's tables and views through SQLite's
// table-valued pragmas, every name bound as a parameter. Virtual tables
// (FTS5) and their shadow tables are not entities.
func introspectSQLite(ctx context.Context, db Querier, schema string) ([]*rawTable, error) {
	if schema == "" {
		schema = "main"
	}
	rows, err := db.QueryContext(ctx, `SELECT name, type, wr FROM pragma_table_list
WHERE schema = ? AND type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`, schema)
	if err != nil {
		return nil, fmt.Errorf("entity: reading the tables: %w", err)
	}
	var tables []*rawTable
	withoutRowid := map[*rawTable]bool{}
	for rows.Next() {
		var name, kind string
		var wr bool
		if err := rows.Scan(&name, &kind, &wr); err != nil {
			rows.Close()
			return nil, fmt.Errorf("entity: reading the tables: %w", err)
		}
		t := &rawTable{name: name, view: kind == "view"}
		withoutRowid[t] = wr
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity: reading the tables: %w", err)
	}
	for _, t := range tables {
		if err := sqliteColumns(ctx, db, schema, t, withoutRowid[t]); err != nil {
			return nil, err
		}
		if err := sqliteUniques(ctx, db, schema, t); err != nil {
			return nil, err
		}
		if err := sqliteForeignKeys(ctx, db, schema, t); err != nil {
			return nil, err
		}
		if err := sqliteChecks(ctx, db, schema, t); err != nil {
			return nil, err
		}
	}
	return tables, nil
}

func sqliteColumns(ctx context.Context, db Querier, schema string, t *rawTable, withoutRowid bool) error {
	rows, err := db.QueryContext(ctx, `SELECT name, type, "notnull", dflt_value IS NOT NULL, pk, hidden
FROM pragma_table_xinfo(?, ?) ORDER BY cid`, t.name, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the columns of %s: %w", t.name, err)
	}
	defer rows.Close()
	var keys []struct {
		pos  int
		name string
	}
	for rows.Next() {
		c := &rawColumn{}
		var pk, hidden int
		if err := rows.Scan(&c.name, &c.dbType, &c.notNull, &c.hasDefault, &pk, &hidden); err != nil {
			return fmt.Errorf("entity: reading the columns of %s: %w", t.name, err)
		}
		c.typ = sqliteType(c.dbType)
		c.generated = hidden == 2 || hidden == 3
		if pk > 0 {
			keys = append(keys, struct {
				pos  int
				name string
			}{pk, c.name})
		}
		t.columns = append(t.columns, c)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entity: reading the columns of %s: %w", t.name, err)
	}
	t.primary = make([]string, len(keys))
	for _, k := range keys {
		if k.pos <= len(keys) {
			t.primary[k.pos-1] = k.name
		}
	}
	if len(t.primary) == 1 && !withoutRowid {
		for _, c := range t.columns {
			// An INTEGER PRIMARY KEY is the rowid: SQLite assigns it.
			if c.name == t.primary[0] && strings.EqualFold(c.dbType, "INTEGER") {
				c.generated, c.hasDefault, c.notNull = true, true, true
			}
		}
	}
	return nil
}

// sqliteType maps a declared column type by SQLite's affinity rules,
// after the names SQLite gives no affinity of their own but programs use
// for booleans, timestamps, dates, UUIDs and JSON. Of the NUMERIC
// affinity only the numeric names (NUMERIC, DECIMAL, NUMBER) map, and
// JSON: a STRING column has NUMERIC affinity yet holds text, so it is
// left out.
func sqliteType(decl string) Type {
	u := strings.ToUpper(decl)
	if strings.Contains(u, "JSON") {
		// JSON, JSONB: the column holds JSON text (by convention: SQLite
		// checks it only with a CHECK (json_valid(col)), which makes a
		// TEXT column JSON too).
		return JSON
	}
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(u, x) {
				return true
			}
		}
		return false
	}
	switch {
	case has("BOOL"):
		return Boolean
	case has("TIMESTAMP", "DATETIME"):
		return Timestamp
	case strings.HasPrefix(u, "DATE"):
		return Date
	case has("UUID", "GUID"):
		return UUID
	case has("INT"):
		return Integer
	case has("CHAR", "CLOB", "TEXT"):
		return Text
	case u == "" || has("BLOB"):
		return 0
	case has("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL", "NUMBER"):
		return Number
	}
	return 0
}

// sqliteUniques reads the unique indexes (constraints included) that
// cover whole columns and no WHERE clause.
func sqliteUniques(ctx context.Context, db Querier, schema string, t *rawTable) error {
	if t.view {
		return nil
	}
	rows, err := db.QueryContext(ctx, `SELECT il.name, ii.name FROM pragma_index_list(?1, ?2) il
JOIN pragma_index_info(il.name, ?2) ii WHERE il."unique" AND NOT il.partial ORDER BY il.name, ii.seqno`, t.name, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the indexes of %s: %w", t.name, err)
	}
	defer rows.Close()
	cols, err := groupNames(rows)
	if err != nil {
		return fmt.Errorf("entity: reading the indexes of %s: %w", t.name, err)
	}
	t.uniques = append(t.uniques, cols...)
	return nil
}

// groupNames reads (group, name) rows in group order into one list of
// names per group; a group with a NULL name (an expression) is dropped.
func groupNames(rows *sql.Rows) ([][]string, error) {
	var groups [][]string
	var last string
	expression := map[int]bool{}
	for rows.Next() {
		var group string
		var name sql.NullString
		if err := rows.Scan(&group, &name); err != nil {
			return nil, err
		}
		if len(groups) == 0 || group != last {
			groups, last = append(groups, nil), group
		}
		i := len(groups) - 1
		expression[i] = expression[i] || !name.Valid
		groups[i] = append(groups[i], name.String)
	}
	var out [][]string
	for i, g := range groups {
		if !expression[i] {
			out = append(out, g)
		}
	}
	return out, rows.Err()
}

func sqliteForeignKeys(ctx context.Context, db Querier, schema string, t *rawTable) error {
	if t.view {
		return nil
	}
	rows, err := db.QueryContext(ctx, `SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(?, ?)
ORDER BY id, seq`, t.name, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the foreign keys of %s: %w", t.name, err)
	}
	defer rows.Close()
	last := -1
	for rows.Next() {
		var id int
		var table, from string
		var to sql.NullString
		if err := rows.Scan(&id, &table, &from, &to); err != nil {
			return fmt.Errorf("entity: reading the foreign keys of %s: %w", t.name, err)
		}
		if id != last {
			t.foreign = append(t.foreign, rawForeignKey{refTable: table})
			last = id
		}
		fk := &t.foreign[len(t.foreign)-1]
		fk.columns = append(fk.columns, from)
		if to.Valid {
			fk.refColumns = append(fk.refColumns, to.String)
		}
	}
	return rows.Err()
}

// sqliteChecks applies the table's CHECK constraints that say one thing
// of one column (an enum, or json_valid) to its columns, read from its
// CREATE TABLE statement. The schema's name is the operator's, quoted.
func sqliteChecks(ctx context.Context, db Querier, schema string, t *rawTable) error {
	if t.view {
		return nil
	}
	var create sql.NullString
	err := db.QueryRowContext(ctx, `SELECT sql FROM `+quoteWith(schema, '"')+`.sqlite_schema WHERE type = 'table' AND name = ?`,
		t.name).Scan(&create)
	if err != nil {
		return fmt.Errorf("entity: reading the checks of %s: %w", t.name, err)
	}
	var facts []checkFact
	for _, clause := range checkClauses(create.String) {
		if f, ok := readCheck(clause, sqltext.SQLite); ok {
			facts = append(facts, f)
		}
	}
	applyChecks(t, facts, true)
	return nil
}
