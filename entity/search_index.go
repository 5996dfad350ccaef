package entity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxSearchText is the longest search text, in characters, a Searcher
// from this package accepts; MaxSearchWords the most words.
const (
	MaxSearchText  = 500
	MaxSearchWords = 32
)

// errNoSearchWords is the refusal for a search text with no word in it.
var errNoSearchWords = errors.New("search: give at least one word (letters or digits)")

// SearchIndexOptions configures [CreateSearchIndex].
type SearchIndexOptions struct {
	// Fields are the Names of the text fields to index. If empty, the
	// entity's Searchable fields are indexed.
	Fields []string
	// Name names the index: the FTS5 table on SQLite (if empty,
	// the table's name and "_fts"), the generated tsvector column on
	// PostgreSQL (if empty, "search_vector") and the FULLTEXT index on
	// MySQL (if empty, "ferry_search").
	Name string
	// Config is the PostgreSQL text search configuration. If empty,
	// defaults to "simple", which stems nothing and suits any language;
	// "english" stems English words. Other engines ignore it.
	Config string
}

// CreateSearchIndex creates a full-text index over an entity's text
// fields and returns the [Searcher] that queries it. It is a migration
// step the program runs on purpose (Ferry never creates an index on its
// own): on SQLite an external-content FTS5 table named after the table
// plus triggers that keep it in step with inserts, updates and deletes,
// filled from the rows already there; on PostgreSQL a stored generated
// tsvector column over the fields (coalesced, so a NULL field does not
// blank the rest) and a GIN index on it; on MySQL and MariaDB a FULLTEXT
// index. Where db can begin a transaction (*sql.DB, *sql.Conn) the SQLite
// and PostgreSQL steps run in one.
//
// If an index of this package's shape already exists over the same
// fields, CreateSearchIndex returns its Searcher and changes nothing; over
// other fields, it returns an error. The fields must be text fields of a
// table, not a view.
func CreateSearchIndex(ctx context.Context, db Querier, engine Engine, e *Entity, opts *SearchIndexOptions) (Searcher, error) {
	var o SearchIndexOptions
	if opts != nil {
		o = *opts
	}
	cols, fields, err := searchColumns(e, o.Fields)
	if err != nil {
		return nil, err
	}
	found, err := FindSearchIndex(ctx, db, engine, e)
	if err != nil {
		return nil, err
	}
	if found != nil {
		if have := searcherFields(found); !slices.Equal(have, fields) {
			return nil, fmt.Errorf("entity: %s already has a search index, over %s", e.Table, strings.Join(have, ", "))
		}
		return found, nil
	}
	switch engine {
	case SQLite:
		return createFTS5(ctx, db, e, o.Name, cols, fields)
	case PostgreSQL:
		return createPostgresSearch(ctx, db, e, o.Name, o.Config, cols, fields)
	case MySQL:
		return createMySQLSearch(ctx, db, e, o.Name, cols, fields)
	}
	return nil, fmt.Errorf("entity: unknown engine %q", engine)
}

// FindSearchIndex returns the [Searcher] for a full-text index over e's
// table, or nil if it has none: on SQLite an FTS5 table whose content is
// e's table (named as [CreateSearchIndex] names it, or any other); on
// PostgreSQL a stored generated tsvector column; on MySQL a FULLTEXT
// index (the first by name, if several). The searcher's fields are those
// of e the index covers; an index over a column e leaves out is ignored.
func FindSearchIndex(ctx context.Context, db Querier, engine Engine, e *Entity) (Searcher, error) {
	if e == nil {
		return nil, errors.New("entity: FindSearchIndex of a nil entity")
	}
	switch engine {
	case SQLite:
		return findFTS5(ctx, db, e)
	case PostgreSQL:
		return findPostgresSearch(ctx, db, e)
	case MySQL:
		return findMySQLSearch(ctx, db, e)
	}
	return nil, fmt.Errorf("entity: unknown engine %q", engine)
}

// searchColumns resolves the fields to index (names, or e's Searchable
// fields) to their columns, refusing unknown and non-text ones.
func searchColumns(e *Entity, names []string) (cols, fields []string, err error) {
	if e == nil {
		return nil, nil, errors.New("entity: CreateSearchIndex of a nil entity")
	}
	if e.View {
		return nil, nil, fmt.Errorf("entity: %s is a view; a search index needs a table", e.Table)
	}
	if len(names) == 0 {
		for _, f := range e.Fields {
			if f.Searchable {
				names = append(names, f.Name)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("entity: %s has no searchable fields; name them in SearchIndexOptions.Fields", e.Table)
	}
	for _, n := range names {
		f := e.Field(n)
		switch {
		case f == nil:
			return nil, nil, fmt.Errorf("entity: %s has no field %q to index", e.Table, n)
		case f.Type != Text:
			return nil, nil, fmt.Errorf("entity: %s.%s is not a text field; only text is indexed for search", e.Table, n)
		}
		cols = append(cols, f.Column)
		fields = append(fields, f.Name)
	}
	return cols, fields, nil
}

// fieldsOfColumns maps index columns to e's field names, in the index's
// order, skipping columns e leaves out.
func fieldsOfColumns(e *Entity, cols []string) []string {
	var names []string
	for _, c := range cols {
		if f := fieldOfColumn(e, c); f != nil {
			names = append(names, f.Name)
		}
	}
	return names
}

func searcherFields(s Searcher) []string {
	switch s := s.(type) {
	case *FTS5Searcher:
		return s.Fields
	case *PostgresSearcher:
		return s.Fields
	case *MySQLSearcher:
		return s.Fields
	}
	return nil
}

// searchWords checks a search text and splits it into words at white
// space, keeping the words that hold a letter or a digit (a word of only
// punctuation finds nothing on any engine).
func searchWords(text string) ([]string, error) {
	if !utf8.ValidString(text) {
		return nil, errors.New("search: the text is not valid UTF-8")
	}
	if strings.ContainsRune(text, 0) {
		return nil, errors.New("search: the text holds a NUL character")
	}
	if n := utf8.RuneCountInString(text); n > MaxSearchText {
		return nil, fmt.Errorf("search: the text is %d characters; at most %d are allowed", n, MaxSearchText)
	}
	var words []string
	for _, w := range strings.Fields(text) {
		if strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
			words = append(words, w)
		}
	}
	switch {
	case len(words) == 0:
		return nil, errNoSearchWords
	case len(words) > MaxSearchWords:
		return nil, fmt.Errorf("search: the text has %d words; at most %d are allowed", len(words), MaxSearchWords)
	}
	return words, nil
}

// searchIdent quotes an identifier from our own model for engine's SQL,
// as the engine's dialect quotes one.
func searchIdent(engine Engine, name string) string {
	if engine == MySQL {
		return quoteWith(name, '`')
	}
	return quoteWith(name, '"')
}

// searchTable is e's table, quoted and qualified by its schema if it has
// one.
func searchTable(engine Engine, e *Entity, table string) string {
	if e.Schema == "" {
		return searchIdent(engine, table)
	}
	return searchIdent(engine, e.Schema) + "." + searchIdent(engine, table)
}

// searchQualifier is the prefix that names e's table in a query's FROM:
// the alias if there is one, else the table.
func searchQualifier(engine Engine, e *Entity, alias string) string {
	if alias != "" {
		return searchIdent(engine, alias) + "."
	}
	return searchTable(engine, e, e.Table) + "."
}

// execAll runs statements in order, in one transaction if db can begin
// one.
func execAll(ctx context.Context, db Querier, stmts ...string) error {
	b, ok := db.(txBeginner)
	if !ok {
		return execEach(ctx, db, stmts)
	}
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("entity: creating the search index: %w", err)
	}
	if err := execEach(ctx, tx, stmts); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("entity: creating the search index: %w", err)
	}
	return nil
}

func execEach(ctx context.Context, db Querier, stmts []string) error {
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("entity: creating the search index: %w", err)
		}
	}
	return nil
}
