package entity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/sqltext"
)

// preparedSQL is a query's statement as it runs: its parameters replaced
// by the engine's placeholders, its comments dropped.
type preparedSQL struct {
	// text is the statement with placeholders.
	text string
	// names are the parameters in their order of first use.
	names []string
	// bind lists, per placeholder in order, the index in names of the
	// value it takes: PostgreSQL's $n name each parameter once, SQLite's
	// and MySQL's ? take one value per use.
	bind  []int
	class sqltext.Class
}

// sqlDialect is the tokenizer's dialect of an engine.
func sqlDialect(e Engine) sqltext.Dialect {
	switch e {
	case PostgreSQL:
		return sqltext.PostgreSQL
	case MySQL:
		return sqltext.MySQL
	}
	return sqltext.SQLite
}

// prepareSQL reads q's statement as engine e will, tells what it does,
// and writes it with e's placeholders.
func prepareSQL(q *Query, e Engine) (*preparedSQL, error) {
	toks, err := sqltext.Scan(q.SQL, sqlDialect(e))
	var code []sqltext.Token
	if err == nil {
		code, err = sqltext.Code(toks)
	}
	var c sqltext.Class
	if err == nil {
		c, err = sqltext.Classify(code)
	}
	if err != nil {
		return nil, q.sqlError(err)
	}
	p := &preparedSQL{class: c}
	index := map[string]int{}
	var b strings.Builder
	for _, t := range toks {
		switch {
		case t.Kind == sqltext.Comment:
			// Dropped, so that nothing appended (a LIMIT) lands in one.
			b.WriteByte(' ')
			continue
		case t.Kind == sqltext.Punct && t.Text == ";":
			continue // the final one: Code refused any other
		case t.Kind != sqltext.Param:
			b.WriteString(t.Text)
			continue
		}
		n, ok := index[t.Text]
		if !ok {
			n = len(p.names)
			index[t.Text] = n
			p.names = append(p.names, t.Text)
		}
		if e == PostgreSQL {
			b.WriteString("$" + strconv.Itoa(n+1))
			continue
		}
		b.WriteByte('?')
		p.bind = append(p.bind, n)
	}
	p.text = strings.TrimSpace(b.String())
	if e == PostgreSQL {
		for i := range p.names {
			p.bind = append(p.bind, i)
		}
	}
	return p, nil
}

// args orders the values of names (by index) as the placeholders take
// them.
func (p *preparedSQL) args(vals []any) []any {
	out := make([]any, len(p.bind))
	for i, n := range p.bind {
		out[i] = vals[n]
	}
	return out
}

// sqlError places an error of the statement's text at its line.
func (q *Query) sqlError(err error) error {
	var se *sqltext.Error
	if errors.As(err, &se) && q.sqlLine > 0 {
		line := q.sqlLine + strings.Count(q.SQL[:min(se.Pos, len(q.SQL))], "\n")
		return fmt.Errorf("%s:%d: query %s: %s", q.File, line, q.Name, se.Msg)
	}
	return fmt.Errorf("%s%w", q.where(), err)
}
