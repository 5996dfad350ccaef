package entity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/sqltext"
)

// introspectMySQL reads a database's tables and views from MySQL's or
// MariaDB's information_schema, which shows what the user may see.
func introspectMySQL(ctx context.Context, db Querier, schema string) ([]*rawTable, error) {
	if schema == "" {
		var current sql.NullString
		if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&current); err != nil {
			return nil, fmt.Errorf("entity: reading the current database: %w", err)
		}
		if !current.Valid {
			return nil, errors.New("entity: the connection has no database; name one in the DSN or IntrospectOptions.Schema")
		}
		schema = current.String
	}
	tables, byName, err := myReadTables(ctx, db, schema)
	if err != nil {
		return nil, err
	}
	if err := myReadColumns(ctx, db, schema, byName); err != nil {
		return nil, err
	}
	if err := myReadIndexes(ctx, db, schema, byName); err != nil {
		return nil, err
	}
	if err := myReadChecks(ctx, db, schema, byName); err != nil {
		return nil, err
	}
	return tables, myReadForeignKeys(ctx, db, schema, byName)
}

func myReadTables(ctx context.Context, db Querier, schema string) ([]*rawTable, map[string]*rawTable, error) {
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME, TABLE_TYPE, COALESCE(TABLE_COMMENT, '')
FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED', 'VIEW')
ORDER BY TABLE_NAME`, schema)
	if err != nil {
		return nil, nil, fmt.Errorf("entity: reading the tables: %w", err)
	}
	defer rows.Close()
	var tables []*rawTable
	byName := map[string]*rawTable{}
	for rows.Next() {
		var kind string
		t := &rawTable{}
		if err := rows.Scan(&t.name, &kind, &t.comment); err != nil {
			return nil, nil, fmt.Errorf("entity: reading the tables: %w", err)
		}
		if t.view = kind == "VIEW"; t.view {
			t.comment = "" // MySQL's comment on every view is "VIEW"
		}
		tables = append(tables, t)
		byName[t.name] = t
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("entity: reading the tables: %w", err)
	}
	return tables, byName, nil
}

func myReadColumns(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE = 'YES',
  COALESCE(COLUMN_DEFAULT, 'NULL') <> 'NULL', EXTRA LIKE '%auto_increment%', IS_GENERATED = 'ALWAYS',
  COALESCE(COLUMN_COMMENT, ''), COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), COALESCE(NUMERIC_PRECISION, 0),
  COALESCE(NUMERIC_SCALE, 0)
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the columns: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, dataType string
		var nullable, autoIncrement bool
		var length, precision, scale int64
		c := &rawColumn{}
		err := rows.Scan(&table, &c.name, &dataType, &c.dbType, &nullable, &c.hasDefault, &autoIncrement,
			&c.generated, &c.comment, &length, &precision, &scale)
		if err != nil {
			return fmt.Errorf("entity: reading the columns: %w", err)
		}
		t := byName[table]
		if t == nil {
			continue
		}
		c.notNull = !nullable
		c.typ = myType(strings.ToLower(dataType), strings.ToLower(c.dbType))
		if c.typ == Text && strings.HasPrefix(strings.ToLower(c.dbType), "enum(") {
			c.enum = myEnumLabels(c.dbType)
		}
		if c.typ != 0 {
			c.size = mySize(strings.ToLower(dataType), strings.ToLower(c.dbType), length, precision, scale)
		}
		if autoIncrement {
			c.generated, c.hasDefault, c.notNull = true, true, true
		}
		t.columns = append(t.columns, c)
	}
	return rows.Err()
}

// myType maps a MySQL or MariaDB column type to a field type, or 0 for
// one not served (blobs, binary, bit, set, time, year, spatial types). tinyint(1) is MySQL's boolean.
func myType(dataType, columnType string) Type {
	switch dataType {
	case "tinyint":
		if strings.HasPrefix(columnType, "tinyint(1)") {
			return Boolean
		}
		return Integer
	case "smallint", "mediumint", "int", "integer", "bigint":
		return Integer
	case "decimal", "numeric", "float", "double", "real":
		return Number
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum":
		return Text
	case "datetime", "timestamp":
		return Timestamp
	case "date":
		return Date
	case "uuid":
		return UUID
	case "json":
		return JSON // MySQL's; MariaDB's JSON is a LONGTEXT with a json_valid CHECK
	}
	return 0
}

// myIntRanges are the least and greatest values of MySQL's integer types,
// signed; unsigned ones hold 0 to twice the greatest plus one. BIGINT's
// are int64's own, which every integer field keeps to anyway.
var myIntRanges = map[string]int64{"tinyint": math.MaxInt8, "smallint": math.MaxInt16, "mediumint": 1<<23 - 1, "int": math.MaxInt32, "integer": math.MaxInt32}

// mySize is what a column holds beyond its field type, from its types and
// information_schema's lengths: a CHAR or VARCHAR's characters (TEXT's
// limits are bytes, which a character count cannot say), a DECIMAL's
// digits, an integer's range.
func mySize(dataType, columnType string, length, precision, scale int64) columnSize {
	var s columnSize
	unsigned := strings.Contains(columnType, "unsigned")
	switch dataType {
	case "char":
		s.padded = true
		s.maxLength = int(length)
	case "varchar":
		s.maxLength = int(length)
	case "decimal", "numeric":
		s.precision, s.scale = int(precision), int(scale)
		if unsigned {
			s.min = ptr(int64(0))
		}
	case "datetime", "timestamp":
		// datetime keeps whole seconds, datetime(3) milliseconds.
		d := 0
		if _, digits, ok := strings.Cut(columnType, "("); ok {
			d, _ = strconv.Atoi(strings.TrimSuffix(digits, ")"))
		}
		s.timeStep = timeStep(d)
	case "bigint":
		if unsigned {
			s.min = ptr(int64(0))
		}
	}
	if top, ok := myIntRanges[dataType]; ok && !strings.HasPrefix(columnType, "tinyint(1)") {
		if unsigned {
			s.min, s.max = ptr(int64(0)), ptr(2*top+1)
		} else {
			s.min, s.max = ptr(-top-1), ptr(top)
		}
	}
	return s
}

// myEnumLabels reads the labels of an enum column type, such as
//
//	enum('draft','it''s')
func myEnumLabels(columnType string) []string {
	s := columnType[len("enum(") : len(columnType)-1]
	var labels []string
	for s != "" {
		if s[0] != '\'' {
			return labels
		}
		var b strings.Builder
		i := 1
		for ; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(s[i])
		}
		labels = append(labels, b.String())
		s = strings.TrimPrefix(s[min(i+1, len(s)):], ",")
	}
	return labels
}

// myReadIndexes reads the primary key and the unique indexes over whole
// columns (not prefixes).
func myReadIndexes(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME, INDEX_NAME, CASE WHEN SUB_PART IS NULL THEN COLUMN_NAME END
FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND NON_UNIQUE = 0
ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the keys: %w", err)
	}
	defer rows.Close()
	type key struct{ table, index string }
	var order []key
	cols := map[key][]string{}
	partial := map[key]bool{}
	for rows.Next() {
		var k key
		var col sql.NullString
		if err := rows.Scan(&k.table, &k.index, &col); err != nil {
			return fmt.Errorf("entity: reading the keys: %w", err)
		}
		if _, ok := cols[k]; !ok {
			order = append(order, k)
		}
		cols[k] = append(cols[k], col.String)
		partial[k] = partial[k] || !col.Valid
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entity: reading the keys: %w", err)
	}
	for _, k := range order {
		t := byName[k.table]
		switch {
		case t == nil || partial[k]:
		case k.index == "PRIMARY":
			t.primary = cols[k]
		default:
			t.uniques = append(t.uniques, cols[k])
		}
	}
	return nil
}

func myReadForeignKeys(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME,
  REFERENCED_COLUMN_NAME
FROM information_schema.KEY_COLUMN_USAGE
WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_SCHEMA = TABLE_SCHEMA AND REFERENCED_TABLE_NAME IS NOT NULL
ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION`, schema)
	if err != nil {
		return fmt.Errorf("entity: reading the foreign keys: %w", err)
	}
	defer rows.Close()
	var lastTable, lastName string
	for rows.Next() {
		var table, name, col, refTable, refCol string
		if err := rows.Scan(&table, &name, &col, &refTable, &refCol); err != nil {
			return fmt.Errorf("entity: reading the foreign keys: %w", err)
		}
		t := byName[table]
		if t == nil {
			continue
		}
		if table != lastTable || name != lastName {
			t.foreign = append(t.foreign, rawForeignKey{refTable: refTable})
			lastTable, lastName = table, name
		}
		fk := &t.foreign[len(t.foreign)-1]
		fk.columns = append(fk.columns, col)
		fk.refColumns = append(fk.refColumns, refCol)
	}
	return rows.Err()
}

// The CHECK constraints: MariaDB's CHECK_CONSTRAINTS names each one's
// table (its column constraints are named after the column, so names
// repeat across tables); MySQL's does not, and its constraint names are
// unique in a schema, so TABLE_CONSTRAINTS gives the table.
const (
	mariaDBChecks = `SELECT TABLE_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = ? ORDER BY TABLE_NAME, CONSTRAINT_NAME`
	mySQLChecks = `SELECT tc.TABLE_NAME, cc.CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS cc
JOIN information_schema.TABLE_CONSTRAINTS tc ON tc.CONSTRAINT_SCHEMA = cc.CONSTRAINT_SCHEMA
  AND tc.CONSTRAINT_NAME = cc.CONSTRAINT_NAME AND tc.CONSTRAINT_TYPE = 'CHECK'
WHERE cc.CONSTRAINT_SCHEMA = ? ORDER BY tc.TABLE_NAME, cc.CONSTRAINT_NAME`
)

// myReadChecks applies the CHECK constraints that say one thing of one
// column (an enum, or json_valid for MariaDB's JSON) to the columns. A
// server with no CHECK_CONSTRAINTS (MySQL before 8.0.16) has none to
// apply.
func myReadChecks(ctx context.Context, db Querier, schema string, byName map[string]*rawTable) error {
	rows, err := db.QueryContext(ctx, mariaDBChecks, schema)
	if err != nil {
		if rows, err = db.QueryContext(ctx, mySQLChecks, schema); err != nil {
			return nil //nolint:nilerr // no CHECK_CONSTRAINTS: no checks to read
		}
	}
	defer rows.Close()
	facts := map[*rawTable][]checkFact{}
	for rows.Next() {
		var table, clause string
		if err := rows.Scan(&table, &clause); err != nil {
			return fmt.Errorf("entity: reading the checks: %w", err)
		}
		t := byName[table]
		if f, ok := readCheck(clause, sqltext.MySQL); ok && t != nil {
			facts[t] = append(facts[t], f)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("entity: reading the checks: %w", err)
	}
	for t, fs := range facts {
		applyChecks(t, fs, true)
	}
	return nil
}
