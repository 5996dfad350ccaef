package entity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// IntrospectOptions configures [Introspect]. The zero value reads every
// table and view of the connection's current schema.
type IntrospectOptions struct {
	// Schema is the PostgreSQL schema, MySQL database or SQLite schema
	// ("main", or an attached database) to read. If set, the entities
	// carry it and their SQL names it. If empty, MySQL reads DATABASE()
	// (the DSN's database) and SQLite "main", and the entities' Schema is
	// left empty so that their SQL resolves names the same way; PostgreSQL
	// reads current_schema() (what the DSN's search_path makes it) and the
	// entities carry it, because pg_catalog is searched before the
	// search_path: an unqualified table named like a system relation
	// (pg_settings) would be read from the catalog.
	Schema string
	// Tables, if not empty, lists the only tables and views to read, by
	// their names in the database.
	Tables []string
	// ExcludeTables lists tables and views to leave out.
	ExcludeTables []string
	// ExcludeColumns lists columns to leave out, each as "table.column"
	// for one table or "column" for every table (a password hash, a
	// secret). A left-out column is never read, filtered or searched, and
	// a search index over it is not used.
	ExcludeColumns []string
}

// Introspect reads the tables and views of a live database into entities,
// one per table or view, sorted by table name, so that a database with no
// Go types gets the same tools:
//
//   - Names: an entity's Name and Plural come from its table's name made
//     snake_case ([a-z0-9_]) and singular ("order items" gives order_item
//     and order_items); two tables that would share a name get "_2", "_3"
//     in table order. A field's Name is its column's, unless the column's
//     name is not an identifier (A-Z, a-z, 0-9 and _, not led by a digit),
//     in which case it is made snake_case too.
//   - Types: integers, floating and decimal numbers, booleans (PostgreSQL
//     boolean, MySQL tinyint(1), SQLite BOOLEAN), text of any length and
//     enums (Enum holds a PostgreSQL enum's or MySQL ENUM's labels, or
//     the values of a CHECK (col IN ('a', 'b')) on a text column),
//     timestamps, dates, UUIDs, JSON (PostgreSQL json and jsonb, MySQL
//     JSON, a text column a CHECK (json_valid(col)) covers, as MariaDB's
//     JSON is, a SQLite column whose declared type says JSON) and
//     PostgreSQL arrays of one dimension of text, integers, numbers,
//     booleans or UUIDs; SQLite's free-text declared types map by its
//     affinity rules. A column of any other type (bytes, intervals,
//     arrays of other items, a SQLite column with no declared type) is
//     left out, listed in the entity's Unserved and noted in its
//     Description.
//   - Sizes, where the engine enforces them (PostgreSQL and MySQL; SQLite
//     keeps what it is given): varchar(n) and char(n) set MaxLength,
//     char(n) Padded, numeric(p,s) Precision and Scale, 8-, 16-, 24- and
//     32-bit integers Minimum and Maximum (unsigned ones from 0), and a
//     timestamp that keeps less than the microsecond (MySQL's datetime,
//     timestamp(3)) TimeStep.
//   - Every mapped field is Filterable, and Sortable but for JSON and
//     arrays. Searchable marks the
//     fields a full-text index covers ([FindSearchIndex]); the index's
//     own tsvector column is not a field.
//   - A single-column primary key is the Key; it and identity, serial and
//     auto-increment columns are never nullable. Identity, serial,
//     auto-increment, SQLite INTEGER PRIMARY KEY and generated columns are
//     Generated. A table whose primary key has several columns, or that
//     has none, gets no Key (so read tools only), and KeyNote says why.
//   - A table with a column left out (excluded, or of a type not served)
//     that is NOT NULL with no default cannot be inserted into:
//     CreateNote says so, and the entity gets no create tool.
//   - The NaturalKey is the first column, in column order, of a
//     single-column unique constraint or index that is NOT NULL and holds
//     text or integers (other than the Key).
//   - A single-column foreign key to an entity read in the same call
//     becomes the field's References.
//   - Comments (PostgreSQL, MySQL) become Descriptions. Views are View.
//   - A table or view none of whose columns is served (all excluded, or
//     of types not served) is left out: it would have no tools to give.
//
// Every query binds the schema's name as a parameter. It is safe to call
// concurrently.
func Introspect(ctx context.Context, db Querier, engine Engine, opts *IntrospectOptions) ([]*Entity, error) {
	var o IntrospectOptions
	if opts != nil {
		o = *opts
	}
	var tables []*rawTable
	var err error
	switch engine {
	case SQLite:
		tables, err = introspectSQLite(ctx, db, o.Schema)
	case PostgreSQL:
		if o.Schema == "" {
			if o.Schema, err = pgCurrentSchema(ctx, db); err != nil {
				return nil, err
			}
		}
		tables, err = introspectPostgres(ctx, db, o.Schema)
	case MySQL:
		tables, err = introspectMySQL(ctx, db, o.Schema)
	default:
		return nil, fmt.Errorf("entity: unknown engine %q", engine)
	}
	if err != nil {
		return nil, err
	}
	if err := checkTables(ctx, db, engine, tables, &o); err != nil {
		return nil, err
	}
	entities := buildEntities(selectTables(tables, &o), &o)
	for _, e := range entities {
		s, err := FindSearchIndex(ctx, db, engine, e)
		if err != nil {
			return nil, err
		}
		for _, name := range searcherFields(s) {
			e.Field(name).Searchable = true
		}
	}
	return entities, nil
}

// schemaExists asks each engine's catalog whether a schema exists.
var schemaExists = map[Engine]string{
	SQLite:     "SELECT COUNT(*) FROM pragma_database_list WHERE name = ?",
	PostgreSQL: "SELECT COUNT(*) FROM pg_namespace WHERE nspname = $1",
	MySQL:      "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?",
}

// checkTables refuses a named schema that does not exist and a table in
// Tables that is not in it (a typo would otherwise serve nothing,
// silently).
func checkTables(ctx context.Context, db Querier, engine Engine, tables []*rawTable, o *IntrospectOptions) error {
	if o.Schema != "" && len(tables) == 0 {
		var n int
		if err := db.QueryRowContext(ctx, schemaExists[engine], o.Schema).Scan(&n); err != nil {
			return fmt.Errorf("entity: looking for schema %q: %w", o.Schema, err)
		}
		if n == 0 {
			return fmt.Errorf("entity: no schema %q", o.Schema)
		}
	}
	for _, name := range o.Tables {
		if !slices.ContainsFunc(tables, func(t *rawTable) bool { return t.name == name }) {
			return fmt.Errorf("entity: no table or view %q to introspect", name)
		}
	}
	return nil
}

// rawTable is a table as the catalogs describe it, before it becomes an
// Entity.
type rawTable struct {
	name    string
	view    bool
	comment string
	columns []*rawColumn
	primary []string   // primary key columns, in key order
	uniques [][]string // unique constraints and indexes
	foreign []rawForeignKey
}

type rawColumn struct {
	name       string
	dbType     string // as the catalog spells it, for notes
	typ        Type   // 0: not mapped
	items      Type   // an Array's items
	enum       []string
	checkEnum  []string // the values a CHECK allows
	notNull    bool
	hasDefault bool
	generated  bool
	comment    string
	skip       bool // the search index's own column: left out, no note
	size       columnSize
}

// columnSize is what a column's type holds beyond its field type: the
// Field members of the same names.
type columnSize struct {
	maxLength        int
	padded           bool
	precision, scale int
	min, max         *int64
	timeStep         time.Duration
}

type rawForeignKey struct {
	columns, refColumns []string
	refTable            string
}

// selectTables applies the allow and deny lists, and sorts the tables by
// name.
func selectTables(tables []*rawTable, o *IntrospectOptions) []*rawTable {
	var out []*rawTable
	for _, t := range tables {
		if len(o.Tables) > 0 && !slices.Contains(o.Tables, t.name) || slices.Contains(o.ExcludeTables, t.name) {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *rawTable) int { return strings.Compare(a.name, b.name) })
	return out
}

// buildEntities turns the catalogs' tables into entities: names, fields,
// keys, then references across them.
func buildEntities(tables []*rawTable, o *IntrospectOptions) []*Entity {
	taken := map[string]bool{}
	var entities []*Entity
	byTable := map[string]*Entity{}
	var kept []*rawTable
	for _, t := range tables {
		e := &Entity{Schema: o.Schema, Table: t.name, View: t.view}
		notes := []string{}
		if t.comment != "" {
			notes = append(notes, t.comment)
		}
		notes = append(notes, buildFields(e, t, o)...)
		if len(e.Fields) == 0 {
			continue // nothing to serve
		}
		buildKeys(e, t)
		e.Description = strings.Join(notes, " ")
		one, many := entityNames(t.name)
		e.Name = uniqueName(one, taken)
		e.Plural = many + e.Name[len(one):] // the suffix that kept the name unique, if any
		entities = append(entities, e)
		kept = append(kept, t)
		byTable[t.name] = e
	}
	for i, t := range kept {
		buildReferences(entities[i], t, byTable)
	}
	return entities
}

// identifier is a column name usable as it is as a field name.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// buildFields fills e.Fields from t's columns and returns the notes on
// the columns it left out.
func buildFields(e *Entity, t *rawTable, o *IntrospectOptions) []string {
	var left, required []string
	taken := map[string]bool{}
	for _, c := range t.columns {
		if c.skip {
			continue
		}
		hidden := excluded(o.ExcludeColumns, t.name, c.name)
		if (hidden || c.typ == 0) && c.notNull && !c.hasDefault && !c.generated && !t.view {
			required = append(required, fmt.Sprintf("%s (%s)", c.name, c.dbType))
		}
		if hidden {
			continue
		}
		if c.typ == 0 {
			left = append(left, fmt.Sprintf("%q (%s)", c.name, c.dbType))
			e.Unserved = append(e.Unserved, Column{Name: c.name, Type: c.dbType})
			continue
		}
		name := c.name
		if !identifier.MatchString(name) {
			name = snake(name)
		}
		f := &Field{
			Name: uniqueName(name, taken), Column: c.name, Type: c.typ, Items: c.items,
			Nullable: !c.notNull, Generated: c.generated, HasDefault: c.hasDefault,
			Filterable: true, Sortable: !structured(c.typ), Description: c.comment, Enum: c.enum,
			MaxLength: c.size.maxLength, Padded: c.size.padded, Precision: c.size.precision, Scale: c.size.scale,
			Minimum: c.size.min, Maximum: c.size.max, TimeStep: c.size.timeStep,
		}
		if slices.Contains(t.primary, c.name) {
			f.Nullable = false
		}
		if t.view {
			f.Generated, f.HasDefault = false, false // a view is never written
		}
		e.Fields = append(e.Fields, f)
	}
	if len(required) > 0 {
		// An insert cannot leave such a column out: create could never
		// succeed, so it is not served.
		plural := map[bool]string{true: "its column %s is required (NOT NULL, no default) and not served",
			false: "its columns %s are required (NOT NULL, no default) and not served"}[len(required) == 1]
		e.CreateNote = fmt.Sprintf(plural, strings.Join(required, ", "))
	}
	if len(left) == 0 {
		return nil
	}
	return []string{"Columns left out, their types not served: " + strings.Join(left, ", ") + "."}
}

func excluded(list []string, table, column string) bool {
	return slices.Contains(list, column) || slices.Contains(list, table+"."+column)
}

// buildKeys sets e's Key and NaturalKey, or its KeyNote saying why it
// has no Key.
func buildKeys(e *Entity, t *rawTable) {
	if t.view {
		return // a view: View says it all
	}
	switch len(t.primary) {
	case 0:
		e.KeyNote = "the table has no primary key"
		return
	case 1:
		f := fieldOfColumn(e, t.primary[0])
		if f == nil {
			e.KeyNote = fmt.Sprintf("its primary key column %s is left out", t.primary[0])
			return
		}
		e.Key = f.Name
	default:
		e.KeyNote = fmt.Sprintf("its primary key has %d columns (%s)", len(t.primary), strings.Join(t.primary, ", "))
		return
	}
	for _, f := range e.Fields {
		if f.Name == e.Key || f.Nullable || (f.Type != Text && f.Type != Integer) {
			continue
		}
		if slices.ContainsFunc(t.uniques, func(u []string) bool { return len(u) == 1 && u[0] == f.Column }) {
			e.NaturalKey = f.Name
			break
		}
	}
}

func fieldOfColumn(e *Entity, column string) *Field {
	for _, f := range e.Fields {
		if f.Column == column {
			return f
		}
	}
	return nil
}

// buildReferences turns t's single-column foreign keys to entities in
// byTable into References.
func buildReferences(e *Entity, t *rawTable, byTable map[string]*Entity) {
	for _, fk := range t.foreign {
		target := byTable[fk.refTable]
		if len(fk.columns) != 1 || target == nil {
			continue
		}
		f := fieldOfColumn(e, fk.columns[0])
		refCol := ""
		if len(fk.refColumns) == 1 {
			refCol = fk.refColumns[0]
		}
		var to *Field
		if refCol == "" {
			to = target.Field(target.Key)
		} else {
			to = fieldOfColumn(target, refCol)
		}
		if f != nil && to != nil {
			f.References = &Reference{Entity: target.Name, Field: to.Name}
		}
	}
}

// jsonStrings scans a JSON array of strings, as catalog queries return
// lists of names (json_agg, JSON_ARRAYAGG), so that no driver's array
// type is needed.
type jsonStrings []string

// Scan implements sql.Scanner.
func (j *jsonStrings) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*j = nil
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("entity: a list of names as %T", src)
	}
	if err := json.Unmarshal(b, (*[]string)(j)); err != nil {
		return errors.New("entity: a list of names that is not a JSON array of strings")
	}
	return nil
}
