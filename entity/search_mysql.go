package entity

import (
	"context"
	"fmt"
	"strings"
)

// MySQLSearcher searches a FULLTEXT index of the entity's table on MySQL
// or MariaDB with MATCH ... AGAINST in natural-language mode, which reads
// the bound text as plain words: no operator in it means anything. Rows
// rank by MATCH's relevance. InnoDB leaves out words shorter than
// innodb_ft_min_token_size (3 by default) and its stopwords. It is safe
// for concurrent use.
type MySQLSearcher struct {
	// Fields are the Names of the entity's fields the index covers, in
	// the index's order: MATCH must name exactly the index's columns.
	Fields []string
}

// Match implements [Searcher]. The condition is MATCH ... AGAINST; rank
// is its relevance negated, so ordering by it ascending puts the best
// first. The condition's value is bound before the rank's.
func (s *MySQLSearcher) Match(e *Entity, alias, text string, bind func(v any) string) (cond, rank string, err error) {
	match, err := s.match(e, alias, text)
	if err != nil {
		return "", "", err
	}
	cond = match(bind)
	return cond, "-" + match(bind), nil
}

// Condition is Match's condition alone, binding nothing for a rank, for
// a query that needs no order (a count).
func (s *MySQLSearcher) Condition(e *Entity, alias, text string, bind func(v any) string) (string, error) {
	match, err := s.match(e, alias, text)
	if err != nil {
		return "", err
	}
	return match(bind), nil
}

func (s *MySQLSearcher) match(e *Entity, alias, text string) (func(func(any) string) string, error) {
	if _, err := searchWords(text); err != nil {
		return nil, err
	}
	q := searchQualifier(MySQL, e, alias)
	cols := make([]string, len(s.Fields))
	for i, name := range s.Fields {
		f := e.Field(name)
		if f == nil {
			return nil, fmt.Errorf("entity: %s has no field %q to search", e.Table, name)
		}
		cols[i] = q + searchIdent(MySQL, f.Column)
	}
	return func(bind func(any) string) string {
		return "MATCH (" + strings.Join(cols, ", ") + ") AGAINST (" + bind(text) + " IN NATURAL LANGUAGE MODE)"
	}, nil
}

func createMySQLSearch(ctx context.Context, db Querier, e *Entity, name string, cols, fields []string) (Searcher, error) {
	if name == "" {
		name = "ferry_search"
	}
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = searchIdent(MySQL, c)
	}
	err := execEach(ctx, db, []string{"ALTER TABLE " + searchTable(MySQL, e, e.Table) +
		" ADD FULLTEXT INDEX " + searchIdent(MySQL, name) + " (" + strings.Join(q, ", ") + ")"})
	if err != nil {
		return nil, err
	}
	return &MySQLSearcher{Fields: fields}, nil
}

// findMySQLSearch looks for a FULLTEXT index over fields of e only,
// preferring the one named as [CreateSearchIndex] names it, else the
// first by name.
func findMySQLSearch(ctx context.Context, db Querier, e *Entity) (Searcher, error) {
	rows, err := db.QueryContext(ctx, `SELECT INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = COALESCE(NULLIF(?, ''), DATABASE()) AND TABLE_NAME = ? AND INDEX_TYPE = 'FULLTEXT'
ORDER BY INDEX_NAME, SEQ_IN_INDEX`, e.Schema, e.Table)
	if err != nil {
		return nil, fmt.Errorf("entity: looking for a FULLTEXT index of %s: %w", e.Table, err)
	}
	defer rows.Close()
	var names []string
	indexes := map[string][]string{}
	for rows.Next() {
		var index, col string
		if err := rows.Scan(&index, &col); err != nil {
			return nil, fmt.Errorf("entity: looking for a FULLTEXT index of %s: %w", e.Table, err)
		}
		if _, ok := indexes[index]; !ok {
			names = append(names, index)
		}
		indexes[index] = append(indexes[index], col)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity: looking for a FULLTEXT index of %s: %w", e.Table, err)
	}
	var found *MySQLSearcher
	for _, index := range names {
		cols := indexes[index]
		fields := fieldsOfColumns(e, cols)
		if len(fields) != len(cols) {
			continue
		}
		if found == nil || index == "ferry_search" {
			found = &MySQLSearcher{Fields: fields}
		}
	}
	if found == nil {
		return nil, nil
	}
	return found, nil
}
