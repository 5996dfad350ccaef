package entity

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// PostgresSearcher searches a stored generated tsvector column of the
// entity's table, as [CreateSearchIndex] makes it, with
// websearch_to_tsquery: the search text is bound as it is and read as a
// web search engine reads it (words all match, "quoted phrase", -word,
// or), never as query syntax that can fail. Rows rank by ts_rank. It is
// safe for concurrent use.
type PostgresSearcher struct {
	// Column is the tsvector column.
	Column string
	// Config is the text search configuration the column was built with,
	// such as "simple" or "english"; the query must use the same one. If
	// empty, "simple".
	Config string
	// Fields are the Names of the entity's fields the column covers.
	Fields []string
}

// regconfigName is what Config may hold: a configuration name, possibly
// schema-qualified. Config comes from the program or the catalog, never
// from a model, and is written into the SQL as a literal only once it
// passes this check.
var regconfigName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// Match implements [Searcher]. The condition is the column @@ the text's
// tsquery; rank is ts_rank negated, so ordering by it ascending puts the
// best first. The condition's value is bound before the rank's.
func (s *PostgresSearcher) Match(e *Entity, alias, text string, bind func(v any) string) (cond, rank string, err error) {
	col, query, err := s.parts(e, alias, text)
	if err != nil {
		return "", "", err
	}
	cond = col + " @@ " + query(bind)
	return cond, "-ts_rank(" + col + ", " + query(bind) + ")", nil
}

// Condition is Match's condition alone, binding nothing for a rank, for
// a query that needs no order (a count).
func (s *PostgresSearcher) Condition(e *Entity, alias, text string, bind func(v any) string) (string, error) {
	col, query, err := s.parts(e, alias, text)
	if err != nil {
		return "", err
	}
	return col + " @@ " + query(bind), nil
}

func (s *PostgresSearcher) parts(e *Entity, alias, text string) (string, func(func(any) string) string, error) {
	if _, err := searchWords(text); err != nil {
		return "", nil, err
	}
	cfg, err := tsConfig(s.Config)
	if err != nil {
		return "", nil, err
	}
	col := searchQualifier(PostgreSQL, e, alias) + searchIdent(PostgreSQL, s.Column)
	query := func(bind func(any) string) string { return "websearch_to_tsquery(" + cfg + ", " + bind(text) + ")" }
	return col, query, nil
}

// tsConfig is the regconfig literal for a configuration name.
func tsConfig(name string) (string, error) {
	if name == "" {
		name = "simple"
	}
	if !regconfigName.MatchString(name) {
		return "", fmt.Errorf("entity: %q is not a text search configuration name", name)
	}
	return sqlString(name) + "::regconfig", nil
}

func createPostgresSearch(ctx context.Context, db Querier, e *Entity, column, config string, cols, fields []string) (Searcher, error) {
	if column == "" {
		column = "search_vector"
	}
	cfg, err := tsConfig(config)
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "coalesce(" + searchIdent(PostgreSQL, c) + "::text, '')"
	}
	table := searchTable(PostgreSQL, e, e.Table)
	col := searchIdent(PostgreSQL, column)
	err = execAll(ctx, db,
		"ALTER TABLE "+table+" ADD COLUMN "+col+" tsvector GENERATED ALWAYS AS (to_tsvector("+cfg+", "+
			strings.Join(parts, " || ' ' || ")+")) STORED",
		"CREATE INDEX ON "+table+" USING gin ("+col+")")
	if err != nil {
		return nil, err
	}
	if config == "" {
		config = "simple"
	}
	return &PostgresSearcher{Column: column, Config: config, Fields: fields}, nil
}

// pgSearchColumns lists the stored generated tsvector columns of a
// table, with their expressions and the columns they are computed from.
const pgSearchColumns = `
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid),
  COALESCE((SELECT json_agg(r.attname ORDER BY r.attnum) FROM pg_attribute r
    WHERE r.attrelid = c.oid AND r.attnum <> a.attnum AND r.attnum IN (
      SELECT dep.refobjsubid FROM pg_depend dep
      WHERE dep.refclassid = 'pg_class'::regclass AND dep.refobjid = c.oid AND dep.refobjsubid > 0
        AND ((dep.classid = 'pg_class'::regclass AND dep.objid = c.oid AND dep.objsubid = a.attnum)
          OR (dep.classid = 'pg_attrdef'::regclass AND dep.objid = d.oid)))), '[]')::text
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
WHERE n.nspname = COALESCE(NULLIF($1, ''), current_schema()) AND c.relname = $2
  AND a.attgenerated = 's' AND a.atttypid = 'tsvector'::regtype
ORDER BY a.attname`

// tsvectorConfig finds the configuration in a generated column's
// expression: to_tsvector('english'::regconfig, ...).
var tsvectorConfig = regexp.MustCompile(`to_tsvector\('([A-Za-z0-9_.]+)'::regconfig`)

// findPostgresSearch looks for a stored generated tsvector column over
// fields of e only, preferring the one named as [CreateSearchIndex] names
// it.
func findPostgresSearch(ctx context.Context, db Querier, e *Entity) (Searcher, error) {
	rows, err := db.QueryContext(ctx, pgSearchColumns, e.Schema, e.Table)
	if err != nil {
		return nil, fmt.Errorf("entity: looking for a search column of %s: %w", e.Table, err)
	}
	defer rows.Close()
	var found *PostgresSearcher
	for rows.Next() {
		var name, expr string
		var deps jsonStrings
		if err := rows.Scan(&name, &expr, &deps); err != nil {
			return nil, fmt.Errorf("entity: looking for a search column of %s: %w", e.Table, err)
		}
		fields := fieldsOfColumns(e, deps)
		if len(fields) == 0 || len(fields) != len(deps) {
			continue
		}
		s := &PostgresSearcher{Column: name, Config: "simple", Fields: fields}
		if m := tsvectorConfig.FindStringSubmatch(expr); m != nil {
			s.Config = m[1]
		}
		if found == nil || name == "search_vector" {
			found = s
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity: looking for a search column of %s: %w", e.Table, err)
	}
	if found == nil {
		return nil, nil
	}
	return found, nil
}
