// Package likesearch is an entity.Searcher for tables without a full-text
// index: each word of the search text must appear, in any case, in one of
// the searched text fields, tested with LIKE on every engine. It needs no
// index and no migration, so ferry serve can offer search on the fields a
// config file names; it scans the table, so a large table is better served
// by entity.CreateSearchIndex.
//
// Case is folded by LOWER in SQL and strings.ToLower for the words.
// SQLite's LOWER folds ASCII letters only, so on SQLite a non-ASCII
// letter is found only where the column holds it in lower case ("école",
// not "ÉCOLE"); PostgreSQL and MySQL fold every letter.
//
// The words are bound as parameters, with LIKE's wildcards escaped: a
// model's "%" or "_" is a character to find, never a pattern.
package likesearch

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// escape is LIKE's escape character here: not a backslash, which MySQL
// string literals would read as an escape of their own.
const escape = '!'

// Searcher searches Fields of an entity with LIKE. It is safe for
// concurrent use.
type Searcher struct {
	// Engine is the database's engine, which decides identifier quoting.
	Engine entity.Engine
	// Fields are the Names of the text fields searched.
	Fields []string
}

// Match implements entity.Searcher. It ranks nothing: rows keep the list's
// order.
func (s *Searcher) Match(e *entity.Entity, alias, text string, bind func(v any) string) (cond, rank string, err error) {
	cond, err = s.Condition(e, alias, text, bind)
	return cond, "", err
}

// Condition is Match's condition, for counts.
func (s *Searcher) Condition(e *entity.Entity, alias, text string, bind func(v any) string) (string, error) {
	if utf8.RuneCountInString(text) > entity.MaxSearchText {
		return "", ferry.Invalid(fmt.Sprintf("search: at most %d characters", entity.MaxSearchText))
	}
	words := strings.Fields(text)
	switch {
	case len(words) == 0:
		return "", ferry.Invalid("search: give at least one word")
	case len(words) > entity.MaxSearchWords:
		return "", ferry.Invalid(fmt.Sprintf("search: at most %d words", entity.MaxSearchWords))
	}
	cols := make([]string, 0, len(s.Fields))
	for _, name := range s.Fields {
		f := e.Field(name)
		if f == nil || f.Type != entity.Text {
			return "", fmt.Errorf("likesearch: %s has no text field %q", e.Name, name)
		}
		cols = append(cols, "LOWER("+alias+"."+s.quote(f.Column)+")")
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteByte('(')
		for j, c := range cols {
			if j > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString(c + " LIKE " + bind(Pattern(w)) + " ESCAPE '" + string(escape) + "'")
		}
		b.WriteByte(')')
	}
	return b.String(), nil
}

// Pattern is the LIKE pattern that finds word, lower-cased, anywhere.
func Pattern(word string) string {
	var b strings.Builder
	b.WriteByte('%')
	for _, r := range strings.ToLower(word) {
		if r == '%' || r == '_' || r == escape {
			b.WriteRune(escape)
		}
		b.WriteRune(r)
	}
	b.WriteByte('%')
	return b.String()
}

// quote quotes an identifier for the engine, doubling the quote inside.
func (s *Searcher) quote(name string) string {
	q := `"`
	if s.Engine == entity.MySQL {
		q = "`"
	}
	return q + strings.ReplaceAll(name, q, q+q) + q
}
