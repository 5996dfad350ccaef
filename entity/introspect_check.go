package entity

import (
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/sqltext"
)

// This file reads what a table's CHECK constraints say of one column, in
// the two forms it recognises, as each engine's catalog writes them:
//
//   - col IN ('a', 'b'), which PostgreSQL writes col = ANY (ARRAY['a'::text,
//     'b'::text]) and a single value col = 'a': the column's Enum, when it
//     holds text;
//   - json_valid(col) (MariaDB's JSON columns, a SQLite column so
//     checked): the column holds JSON.
//
// Anything else, a CHECK naming two columns or joining conditions, is
// left alone: the enum of a part would not be the column's.

// checkFact is what one CHECK clause says of one column.
type checkFact struct {
	column string
	enum   []string // the allowed values, or nil
	json   bool     // json_valid(column)
}

// readCheck reads a CHECK clause ("CHECK (...)" or the condition alone)
// written in dialect d, or returns ok false.
func readCheck(clause string, d sqltext.Dialect) (checkFact, bool) {
	toks, err := sqltext.Scan(clause, d)
	if err != nil {
		return checkFact{}, false
	}
	var code []sqltext.Token
	for i := 0; i < len(toks); i++ {
		tk := toks[i]
		switch {
		case tk.Kind == sqltext.Space || tk.Kind == sqltext.Comment:
			continue
		case tk.Kind == sqltext.Punct && tk.Text == "::":
			i = skipCast(toks, i+1) - 1
			continue
		case tk.Kind == sqltext.Punct && (tk.Text == "(" || tk.Text == ")"):
			continue
		case tk.Kind == sqltext.Word && strings.HasPrefix(tk.Text, "_") && i+1 < len(toks) && toks[i+1].Kind == sqltext.String:
			continue // MySQL's character set introducer: _utf8mb4'a'
		}
		code = append(code, tk)
	}
	if len(code) > 0 && code[0].Kind == sqltext.Word && strings.EqualFold(code[0].Text, "CHECK") {
		code = code[1:]
	}
	if len(code) == 2 && code[0].Kind == sqltext.Word && strings.EqualFold(code[0].Text, "json_valid") {
		name, ok := checkName(code[1])
		return checkFact{column: name, json: true}, ok
	}
	if len(code) < 3 {
		return checkFact{}, false
	}
	name, ok := checkName(code[0])
	if !ok {
		return checkFact{}, false
	}
	rest := code[1:]
	switch {
	case isWord(rest[0], "IN"):
		rest = rest[1:]
	case isPunct(rest[0], "=") && len(rest) > 3 && isWord(rest[1], "ANY") && isWord(rest[2], "ARRAY") &&
		isPunct(rest[3], "[") && isPunct(rest[len(rest)-1], "]"):
		rest = rest[4 : len(rest)-1]
	case isPunct(rest[0], "=") && len(rest) == 2:
		rest = rest[1:]
	default:
		return checkFact{}, false
	}
	var labels []string
	for i, tk := range rest {
		if i%2 == 1 {
			if !isPunct(tk, ",") {
				return checkFact{}, false
			}
			continue
		}
		s, ok := checkString(tk, d)
		if !ok {
			return checkFact{}, false
		}
		labels = append(labels, s)
	}
	if len(labels) == 0 || len(rest)%2 == 0 {
		return checkFact{}, false
	}
	return checkFact{column: name, enum: labels}, true
}

// skipCast skips the type of a PostgreSQL cast starting at toks[i]:
// words ("character varying"), a size in parentheses and brackets.
func skipCast(toks []sqltext.Token, i int) int {
	for i < len(toks) && (toks[i].Kind == sqltext.Word || toks[i].Kind == sqltext.QuotedName ||
		toks[i].Kind == sqltext.Space && i+1 < len(toks) && slices.ContainsFunc(typeWords, func(w string) bool { return isWord(toks[i+1], w) })) {
		i++
	}
	if i+2 < len(toks) && isPunct(toks[i], "(") && toks[i+1].Kind == sqltext.Number && isPunct(toks[i+2], ")") {
		i += 3
	}
	for i+1 < len(toks) && isPunct(toks[i], "[") && isPunct(toks[i+1], "]") {
		i += 2
	}
	return i
}

// typeWords are the words after the first of PostgreSQL's type names
// of several words: character varying, double precision, timestamp
// without time zone.
var typeWords = []string{"varying", "precision", "with", "without", "time", "zone"}

func isWord(tk sqltext.Token, w string) bool {
	return tk.Kind == sqltext.Word && strings.EqualFold(tk.Text, w)
}

func isPunct(tk sqltext.Token, p string) bool { return tk.Kind == sqltext.Punct && tk.Text == p }

// checkName is a column's name as a CHECK clause writes it: bare, or
// quoted with the quote doubled inside.
func checkName(tk sqltext.Token) (string, bool) {
	switch tk.Kind {
	case sqltext.Word:
		return tk.Text, true
	case sqltext.QuotedName:
		q := tk.Text[:1]
		if q == "[" {
			return tk.Text[1 : len(tk.Text)-1], true
		}
		return strings.ReplaceAll(tk.Text[1:len(tk.Text)-1], q+q, q), true
	}
	return "", false
}

// checkString is a string literal's value: quotes doubled inside, and on
// MySQL its backslash escapes (MariaDB writes 'it\'s').
func checkString(tk sqltext.Token, d sqltext.Dialect) (string, bool) {
	if tk.Kind != sqltext.String || !strings.HasPrefix(tk.Text, "'") {
		return "", false
	}
	s := strings.ReplaceAll(tk.Text[1:len(tk.Text)-1], "''", "'")
	if d != sqltext.MySQL || !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case '0':
			return "", false // NUL: no text field holds one
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'b':
			b.WriteByte('\b')
		case 'Z':
			b.WriteByte(0x1a)
		case '%', '_':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// checkClauses returns the CHECK clauses of a SQLite CREATE TABLE
// statement, each as its parenthesized condition.
func checkClauses(create string) []string {
	toks, err := sqltext.Scan(create, sqltext.SQLite)
	if err != nil {
		return nil
	}
	var out []string
	for i := 0; i < len(toks); i++ {
		if !isWord(toks[i], "CHECK") {
			continue
		}
		j := i + 1
		for j < len(toks) && (toks[j].Kind == sqltext.Space || toks[j].Kind == sqltext.Comment) {
			j++
		}
		if j == len(toks) || !isPunct(toks[j], "(") {
			continue
		}
		depth, start := 0, toks[j].Pos
		for ; j < len(toks); j++ {
			switch {
			case isPunct(toks[j], "("):
				depth++
			case isPunct(toks[j], ")"):
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if j < len(toks) {
			out = append(out, create[start:toks[j].Pos+1])
		}
		i = j
	}
	return out
}

// applyChecks applies what a table's CHECK clauses say to its columns:
// an enum to a text column (the values both of two CHECKs allow), JSON
// to a text column json_valid checks. A name compares as the engine
// compares column names when fold is set (SQLite, MySQL).
func applyChecks(t *rawTable, facts []checkFact, fold bool) {
	for _, f := range facts {
		for _, c := range t.columns {
			if c.name != f.column && !(fold && strings.EqualFold(c.name, f.column)) {
				continue
			}
			switch {
			case f.json && (c.typ == Text || c.typ == JSON) && c.enum == nil:
				c.typ, c.size = JSON, columnSize{}
			case f.enum != nil && c.typ == Text && c.checkEnum == nil:
				c.checkEnum = f.enum
			case f.enum != nil && c.typ == Text:
				c.checkEnum = slices.DeleteFunc(c.checkEnum, func(v string) bool { return !slices.Contains(f.enum, v) })
			}
		}
	}
	for _, c := range t.columns {
		if c.enum == nil && c.checkEnum != nil {
			c.enum = c.checkEnum
		}
	}
}
