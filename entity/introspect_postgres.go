package entity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/sqltext"
)

// The PostgreSQL catalog queries read pg_catalog, which shows every
// table, key and constraint the role can see (information_schema hides
// the constraints of tables the role does not own). $1 is the schema.
const (
	pgTables = `
SELECT c.relname, c.relkind IN ('v', 'm'), COALESCE(obj_description(c.oid, 'pg_class'), '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
ORDER BY c.relname`

	pgColumns = `
SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
  CASE WHEN t.typtype = 'd' THEN bt.typname ELSE t.typname END,
  a.attnotnull, a.attidentity <> '', a.attgenerated <> '',
  d.adbin IS NOT NULL AND a.attgenerated = '', COALESCE(pg_get_expr(d.adbin, d.adrelid), ''),
  COALESCE(col_description(c.oid, a.attnum), ''),
  COALESCE((SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e
    WHERE e.enumtypid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END), '[]')::text,
  CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) ELSE format_type(a.atttypid, a.atttypmod) END,
  CASE WHEN t.typcategory = 'A' THEN COALESCE((SELECT et.typname FROM pg_type et WHERE et.oid = t.typelem AND et.typtype = 'b'), '') ELSE '' END,
  a.attndims
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON bt.oid = t.typbasetype
LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
ORDER BY c.relname, a.attnum`

	// pgConstraints lists primary and foreign keys (to tables of the
	// same schema), their columns in key order.
	pgConstraints = `
SELECT c.relname, con.contype, con.conname,
  (SELECT json_agg(a.attname ORDER BY k.o) FROM unnest(con.conkey) WITH ORDINALITY k(n, o)
   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n)::text,
  COALESCE(fc.relname, ''),
  COALESCE((SELECT json_agg(a.attname ORDER BY k.o) FROM unnest(con.confkey) WITH ORDINALITY k(n, o)
   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n), '[]')::text
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_class fc ON fc.oid = con.confrelid
WHERE n.nspname = $1 AND (con.contype = 'p' OR con.contype = 'f' AND fc.relnamespace = n.oid)
ORDER BY c.relname, con.conname`

	// pgUniques lists the unique indexes (constraints included) over
	// whole columns with no WHERE clause.
	pgUniques = `
SELECT c.relname,
  (SELECT json_agg(a.attname ORDER BY k.o) FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)
   JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.n)::text
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND i.indisunique AND NOT i.indisprimary AND i.indpred IS NULL AND i.indexprs IS NULL
ORDER BY c.relname, i.indexrelid`

	// pgChecks lists the CHECK constraints on one column.
	pgChecks = `
SELECT c.relname, a.attname, pg_get_constraintdef(con.oid)
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1]
WHERE n.nspname = $1 AND con.contype = 'c' AND cardinality(con.conkey) = 1
ORDER BY c.relname, con.conname`
)

// pgCurrentSchema returns the connection's current_schema().
func pgCurrentSchema(ctx context.Context, db Querier) (string, error) {
	var current *string
	if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&current); err != nil {
		return "", fmt.Errorf("entity: reading the current schema: %w", err)
	}
	if current == nil {
		return "", errors.New("entity: the connection has no current schema; set search_path or IntrospectOptions.Schema")
	}
	return *current, nil
}

// introspectPostgres reads a schema's tables, partitioned tables, views
// and materialized views from pg_catalog.
func introspectPostgres(ctx context.Context, db Querier, schema string) ([]*rawTable, error) {
	tables, byName, err := pgReadTables(ctx, db, schema)
	if err != nil {
		return nil, err
	}
	if err := pgReadColumns(ctx, db, schema, byName); err != nil {
		return nil, err
	}
	if err := pgReadConstraints(ctx, db, schema, byName); err != nil {
		return nil, err
	}
	if err := pgReadChecks(ctx, db, schema, byName); err != nil {
		return nil, err
	}
	return tables, pgReadUniques(ctx, db, schema, byName)
}

func pgReadTables(ctx context.Context, db Querier, schema string) ([]*rawTable, map[string]*rawTable, error) {
	rows, err := db.QueryContext(ctx, pgTables, schema)
	if err != nil {
		return nil, nil, fmt.Errorf("entity: reading the tables: %w", err)
	}
	defer rows.Close()
	var tables []*rawTable
	byName := map[string]*rawTable{}
	for rows.Next() {
		t := &rawTable{}
		if err := rows.Scan(&t.name, &t.view, &t.comment); err != nil {
			return nil, nil, fmt.Errorf("entity: reading the tables: %w", err)
		}
		tables = append(tables, t)
		byName[t.name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("entity: reading the tables: %w", err)
	}
	return tables, byName, nil
}

func pgReadColumns(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, pgColumns, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, typname, def, base, elem string
		var identity bool
		var enum jsonStrings
		var dims int
		c := &rawColumn{}
		err := rows.Scan(&table, &c.name, &c.dbType, &typname, &c.notNull, &identity, &c.generated,
			&c.hasDefault, &def, &c.comment, &enum, &base, &elem, &dims)
		if err != nil {
			return fmt.Errorf("entity: reading the columns: %w", err)
		}
		t := byName[table]
		if t == nil {
			continue
		}
		c.typ = pgType(typname, len(enum) > 0)
		if elem != "" && dims <= 1 && elem != "bpchar" {
			// An array of one dimension (PostgreSQL does not enforce the
			// declared ones; more is not served) of served items. A
			// char(n) pads its items, which to_json keeps: not served.
			switch it := pgType(elem, false); it {
			case Text, Integer, Number, Boolean, UUID:
				c.typ, c.items = Array, it
			}
		}
		switch {
		case len(enum) > 0:
			c.enum = enum
		case c.typ == Array:
			pgSize(c, elem, strings.TrimSuffix(base, "[]")) // its items' size
		default:
			pgSize(c, typname, base)
		}
		if identity || strings.HasPrefix(def, "nextval(") {
			// Identity and serial columns: the database numbers them.
			c.generated, c.hasDefault, c.notNull = true, true, true
		}
		c.skip = typname == "tsvector" && c.generated
		t.columns = append(t.columns, c)
	}
	return rows.Err()
}

// pgType maps a PostgreSQL type name (a domain's base type) to a field
// type, or 0 for one not served (bytea, intervals, ...).
func pgType(typname string, enum bool) Type {
	if enum {
		return Text
	}
	switch typname {
	case "int2", "int4", "int8":
		return Integer
	case "float4", "float8", "numeric":
		return Number
	case "bool":
		return Boolean
	case "text", "varchar", "bpchar", "citext", "name":
		return Text
	case "timestamp", "timestamptz":
		return Timestamp
	case "date":
		return Date
	case "uuid":
		return UUID
	case "json", "jsonb":
		return JSON
	}
	return 0
}

// pgTypmod reads the sizes format_type writes: "character varying(20)",
// "character(2)", "numeric(8,2)", "numeric(2,-3)".
var pgTypmod = regexp.MustCompile(`^[a-z ]+\((\d+)(?:,(-?\d+))?\)$`)

// pgTimeDigits reads the digits of the seconds a timestamp column keeps,
// as format_type writes them: "timestamp(3) without time zone".
var pgTimeDigits = regexp.MustCompile(`^timestamp\((\d+)\)`)

// pgSize sets what a column of PostgreSQL type typname (a domain's base
// type), written base by format_type with its size, holds beyond its
// field type.
func pgSize(c *rawColumn, typname, base string) {
	m := pgTypmod.FindStringSubmatch(base)
	n := 0
	if m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	switch typname {
	case "bpchar":
		c.size.padded = true
		c.size.maxLength = n
	case "varchar":
		c.size.maxLength = n
	case "numeric":
		if m != nil {
			c.size.precision = n
			c.size.scale, _ = strconv.Atoi(m[2]) // numeric(8) is numeric(8,0)
		}
	case "timestamp", "timestamptz":
		// format_type writes "timestamp(3) with time zone"; with no
		// digits the column keeps microseconds.
		if m := pgTimeDigits.FindStringSubmatch(base); m != nil {
			d, _ := strconv.Atoi(m[1])
			c.size.timeStep = timeStep(d)
		}
	case "int2":
		c.size.min, c.size.max = ptr(int64(math.MinInt16)), ptr(int64(math.MaxInt16))
	case "int4":
		c.size.min, c.size.max = ptr(int64(math.MinInt32)), ptr(int64(math.MaxInt32))
	}
}

func pgReadConstraints(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, pgConstraints, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, kind, name, refTable string
		var cols, refCols jsonStrings
		if err := rows.Scan(&table, &kind, &name, &cols, &refTable, &refCols); err != nil {
			return fmt.Errorf("entity: reading the keys: %w", err)
		}
		t := byName[table]
		switch {
		case t == nil:
		case kind == "p":
			t.primary = cols
		default:
			t.foreign = append(t.foreign, rawForeignKey{columns: cols, refTable: refTable, refColumns: refCols})
		}
	}
	return rows.Err()
}

func pgReadUniques(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, pgUniques, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the unique keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table string
		var cols jsonStrings
		if err := rows.Scan(&table, &cols); err != nil {
			return fmt.Errorf("entity: reading the unique keys: %w", err)
		}
		if t := byName[table]; t != nil {
			t.uniques = append(t.uniques, cols)
		}
	}
	return rows.Err()
}

// pgReadChecks applies the single-column CHECK constraints (an enum of
// text values) to the columns.
func pgReadChecks(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, pgChecks, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the checks: %w", err)
	}
	defer rows.Close()
	facts := map[*rawTable][]checkFact{}
	for rows.Next() {
		var table, column, def string
		if err := rows.Scan(&table, &column, &def); err != nil {
			return fmt.Errorf("entity: reading the checks: %w", err)
		}
		t := byName[table]
		if f, ok := readCheck(def, sqltext.PostgreSQL); ok && t != nil && f.column == column {
			facts[t] = append(facts[t], f)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entity: reading the checks: %w", err)
	}
	for t, fs := range facts {
		applyChecks(t, fs, false)
	}
	return nil
}
