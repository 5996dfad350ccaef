package entity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// FTS5Searcher searches an SQLite FTS5 table whose content is the
// entity's table (an external-content table, joined on rowid), as
// [CreateSearchIndex] makes it. Each word of the search text is quoted as
// an FTS5 phrase, so `multi-agent`, `don't`, `NEAR` or `*` are words to
// find, never query syntax; a row matches when it has every word. Rows
// rank by FTS5's bm25. It is safe for concurrent use.
type FTS5Searcher struct {
	// Table is the FTS5 table, in the entity's schema.
	Table string
	// Fields are the Names of the entity's fields it indexes.
	Fields []string
}

// Match implements [Searcher]. The condition keeps the rows whose rowid
// the FTS5 table finds; rank is bm25, lower being better, so ordering by
// it ascending puts the best first. The condition's value is bound
// before the rank's.
func (s *FTS5Searcher) Match(e *Entity, alias, text string, bind func(v any) string) (cond, rank string, err error) {
	q, err := s.query(text)
	if err != nil {
		return "", "", err
	}
	cond = s.condition(e, alias, q, bind)
	// The ranks come from one run of the query, materialized once per
	// statement and looked up by rowid: bm25 for one row alone reads every
	// row holding the words, so a rank per row would cost the square of
	// the matches (minutes for a word in 100,000 rows).
	rank = "(WITH ferry_rank(id, r) AS MATERIALIZED (SELECT rowid, rank FROM " + searchTable(SQLite, e, s.Table) +
		" WHERE " + searchIdent(SQLite, s.Table) + " MATCH " + bind(q) + ") SELECT r FROM ferry_rank WHERE id = " +
		searchQualifier(SQLite, e, alias) + "rowid)"
	return cond, rank, nil
}

// Condition is Match's condition alone, binding nothing for a rank, for
// a query that needs no order (a count).
func (s *FTS5Searcher) Condition(e *Entity, alias, text string, bind func(v any) string) (string, error) {
	q, err := s.query(text)
	if err != nil {
		return "", err
	}
	return s.condition(e, alias, q, bind), nil
}

func (s *FTS5Searcher) query(text string) (string, error) {
	words, err := searchWords(text)
	if err != nil {
		return "", err
	}
	return fts5Query(words), nil
}

func (s *FTS5Searcher) condition(e *Entity, alias, q string, bind func(v any) string) string {
	return searchQualifier(SQLite, e, alias) + "rowid IN (SELECT rowid FROM " + searchTable(SQLite, e, s.Table) +
		" WHERE " + searchIdent(SQLite, s.Table) + " MATCH " + bind(q) + ")"
}

// fts5Query quotes each word as an FTS5 phrase, doubling any embedded
// double quote; phrases side by side must all match.
func fts5Query(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(w, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

func createFTS5(ctx context.Context, db Querier, e *Entity, name string, cols, fields []string) (Searcher, error) {
	if name == "" {
		name = e.Table + "_fts"
	}
	if err := checkRowid(ctx, db, e); err != nil {
		return nil, err
	}
	var qcols, newCols, oldCols []string
	for _, c := range cols {
		q := searchIdent(SQLite, c)
		qcols = append(qcols, q)
		newCols = append(newCols, "new."+q)
		oldCols = append(oldCols, "old."+q)
	}
	fts := searchIdent(SQLite, name)
	trigger := func(suffix string) string { return searchTable(SQLite, e, name+suffix) }
	list := strings.Join(qcols, ", ")
	insert := "INSERT INTO " + fts + "(rowid, " + list + ") VALUES (new.rowid, " + strings.Join(newCols, ", ") + ");"
	remove := "INSERT INTO " + fts + "(" + fts + ", rowid, " + list + ") VALUES ('delete', old.rowid, " + strings.Join(oldCols, ", ") + ");"
	table := searchIdent(SQLite, e.Table)
	stmts := []string{
		"CREATE VIRTUAL TABLE " + searchTable(SQLite, e, name) + " USING fts5(" + list +
			", content=" + sqlString(e.Table) + ", content_rowid='rowid')",
		"CREATE TRIGGER " + trigger("_ai") + " AFTER INSERT ON " + table + " BEGIN " + insert + " END",
		"CREATE TRIGGER " + trigger("_ad") + " AFTER DELETE ON " + table + " BEGIN " + remove + " END",
		"CREATE TRIGGER " + trigger("_au") + " AFTER UPDATE ON " + table + " BEGIN " + remove + " " + insert + " END",
		"INSERT INTO " + searchTable(SQLite, e, name) + "(" + fts + ") VALUES ('rebuild')",
	}
	if err := execAll(ctx, db, stmts...); err != nil {
		return nil, err
	}
	return &FTS5Searcher{Table: name, Fields: fields}, nil
}

// checkRowid refuses a table FTS5 cannot follow by rowid: a WITHOUT
// ROWID table, or one with a column named rowid, which hides the rowid
// the search joins on.
func checkRowid(ctx context.Context, db Querier, e *Entity) error {
	schema := e.Schema
	if schema == "" {
		schema = "main"
	}
	var withoutRowid, shadowed bool
	err := db.QueryRowContext(ctx, `SELECT wr, EXISTS (SELECT 1 FROM pragma_table_xinfo(?1, ?2) WHERE lower(name) = 'rowid')
FROM pragma_table_list WHERE schema = ?2 AND name = ?1`, e.Table, schema).Scan(&withoutRowid, &shadowed)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("entity: no table %q to index", e.Table)
	case err != nil:
		return fmt.Errorf("entity: reading table %s: %w", e.Table, err)
	case withoutRowid:
		return fmt.Errorf("entity: %s is a WITHOUT ROWID table; FTS5 search needs a rowid", e.Table)
	case shadowed:
		return fmt.Errorf("entity: %s has a column named rowid, which hides the rowid FTS5 search needs", e.Table)
	}
	return nil
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// findFTS5 looks for FTS5 tables whose external content is e's table and
// whose columns are all fields of e, preferring the one named as
// [CreateSearchIndex] names it.
func findFTS5(ctx context.Context, db Querier, e *Entity) (Searcher, error) {
	schema := e.Schema
	if schema == "" {
		schema = "main"
	}
	catalog := "sqlite_schema"
	if e.Schema != "" {
		catalog = searchIdent(SQLite, e.Schema) + ".sqlite_schema"
	}
	rows, err := db.QueryContext(ctx,
		"SELECT name, sql FROM "+catalog+" WHERE type = 'table' AND name IN"+
			" (SELECT name FROM pragma_table_list WHERE schema = ? AND type = 'virtual') ORDER BY name", schema)
	if err != nil {
		return nil, fmt.Errorf("entity: looking for an FTS5 index of %s: %w", e.Table, err)
	}
	defer rows.Close()
	var found []*FTS5Searcher
	for rows.Next() {
		var name string
		var ddl sql.NullString
		if err := rows.Scan(&name, &ddl); err != nil {
			return nil, fmt.Errorf("entity: looking for an FTS5 index of %s: %w", e.Table, err)
		}
		cols, content, ok := parseFTS5(ddl.String)
		if !ok || !strings.EqualFold(content, e.Table) {
			continue
		}
		if fields := fieldsOfColumns(e, cols); len(fields) == len(cols) {
			found = append(found, &FTS5Searcher{Table: name, Fields: fields})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("entity: looking for an FTS5 index of %s: %w", e.Table, err)
	}
	if len(found) == 0 {
		return nil, nil
	}
	if i := slices.IndexFunc(found, func(s *FTS5Searcher) bool { return strings.EqualFold(s.Table, e.Table+"_fts") }); i >= 0 {
		return found[i], nil
	}
	return found[0], nil
}

// parseFTS5 reads the columns and the content option from the CREATE
// VIRTUAL TABLE statement of an FTS5 table; ok is false for any other
// statement.
func parseFTS5(ddl string) (cols []string, content string, ok bool) {
	i := indexFold(ddl, "using fts5")
	if i < 0 {
		return nil, "", false
	}
	open := strings.IndexByte(ddl[i:], '(')
	end := strings.LastIndexByte(ddl, ')')
	if open < 0 || end < i+open {
		return nil, "", false
	}
	for _, arg := range splitFTS5Args(ddl[i+open+1 : end]) {
		key, value, isOption := cutOutsideQuotes(arg, '=')
		switch {
		case isOption && strings.EqualFold(strings.TrimSpace(key), "content"):
			content = dequote(strings.TrimSpace(value))
		case !isOption:
			cols = append(cols, dequote(firstToken(arg)))
		}
	}
	return cols, content, content != ""
}

// indexFold is strings.Index ignoring ASCII case, with byte offsets into
// s itself (lowering s first could change its length).
func indexFold(s, ascii string) int {
	for i := 0; i+len(ascii) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(ascii)], ascii) {
			return i
		}
	}
	return -1
}

// splitFTS5Args splits an argument list at the commas outside quotes.
func splitFTS5Args(s string) []string {
	var args []string
	for {
		head, tail, found := cutOutsideQuotes(s, ',')
		if strings.TrimSpace(head) != "" {
			args = append(args, strings.TrimSpace(head))
		}
		if !found {
			return args
		}
		s = tail
	}
}

// cutOutsideQuotes cuts s at the first sep outside '...', "...", `...`
// and [...].
func cutOutsideQuotes(s string, sep byte) (before, after string, found bool) {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '[':
			quote = ']'
		case c == sep:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// firstToken is the column name that starts a column definition such as
// `"name" UNINDEXED`.
func firstToken(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	if closer := map[byte]byte{'\'': '\'', '"': '"', '`': '`', '[': ']'}[s[0]]; closer != 0 {
		for i := 1; i < len(s); i++ {
			if s[i] == closer && (i+1 == len(s) || s[i+1] != closer || closer == ']') {
				return s[:i+1]
			}
			if s[i] == closer {
				i++
			}
		}
		return s
	}
	if i := strings.IndexAny(s, " \t\n\r"); i >= 0 {
		return s[:i]
	}
	return s
}

// dequote removes SQL quotes from an identifier or string, undoubling
// the embedded ones.
func dequote(s string) string {
	if len(s) < 2 {
		return s
	}
	switch q := s[0]; {
	case q == '[' && s[len(s)-1] == ']':
		return s[1 : len(s)-1]
	case (q == '\'' || q == '"' || q == '`') && s[len(s)-1] == q:
		return strings.ReplaceAll(s[1:len(s)-1], string([]byte{q, q}), string(q))
	}
	return s
}
