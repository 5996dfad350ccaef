package entity

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/toolname"
)

// MaxQueryFileBytes bounds a .sql file [ReadQueries] reads.
const MaxQueryFileBytes = 1 << 20

// ReadQueries reads the queries of every .sql file of dir (not of its
// subdirectories), in the files' name order (see [ParseQueries]). Two
// queries of one name are refused.
func ReadQueries(dir string) ([]*Query, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("entity: reading queries: %w", err)
	}
	var all []*Query
	seen := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := readBounded(path)
		if err != nil {
			return nil, err
		}
		qs, err := ParseQueries(path, string(b))
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if prev, ok := seen[q.Name]; ok {
				return nil, fmt.Errorf("%s:%d: a second query named %s (the first is at %s)", path, q.Line, q.Name, prev)
			}
			seen[q.Name] = fmt.Sprintf("%s:%d", path, q.Line)
		}
		all = append(all, qs...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("entity: %s holds no query (.sql files with -- name: lines)", dir)
	}
	return all, nil
}

func readBounded(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	if info.Size() > MaxQueryFileBytes {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, MaxQueryFileBytes)
	}
	return os.ReadFile(path) //nolint:gosec // the directory is the operator's own (a flag), not a model's
}

// ParseQueries reads the queries of a .sql file's text; file names it in
// errors. A query starts with a line
//
//	-- name: top_customers :many
//
// (:many rows, :one row, :exec for a write), then comment lines that
// describe it, then its statement, up to the next "-- name:" line. Among
// the comment lines, those that start with @ say more:
//
//	-- @param since date The first day counted.
//	-- @param top integer minimum:"1" maximum:"50" default:"10" How many.
//	-- @column total number
//	-- @max_rows 200
//	-- @title Top customers
//	-- @groups customers reports
//
// @param NAME [TYPE] [key:"value"...] [description] declares a parameter,
// written @NAME in the statement: TYPE is text, integer, number, boolean,
// timestamp, date or uuid (SQLite and MySQL need it; PostgreSQL infers
// it), the keys are minimum, maximum, minLength, maxLength, pattern, enum
// (values split by commas), default (a JSON value) and nullable ("true").
// @column NAME TYPE gives a result column's type where the engine cannot
// tell it. @groups names the tool's groups ([Query.Groups]), separated by
// spaces; with no name, it is in none. @@ is never a parameter.
func ParseQueries(file, text string) ([]*Query, error) {
	lines := strings.Split(text, "\n")
	var out []*Query
	var q *Query
	var body []string
	inHead := false
	finish := func() error {
		if q == nil {
			return nil
		}
		q.SQL = strings.TrimSpace(strings.Join(body, "\n"))
		if q.SQL == "" {
			return fmt.Errorf("%s:%d: query %s has no statement", file, q.Line, q.Name)
		}
		out = append(out, q)
		return nil
	}
	for i, raw := range lines {
		line := strings.TrimRight(raw, "\r")
		c, isComment := strings.CutPrefix(strings.TrimSpace(line), "--")
		c = strings.TrimSpace(c)
		if isComment && strings.HasPrefix(c, "name:") {
			if err := finish(); err != nil {
				return nil, err
			}
			var err error
			if q, err = parseNameLine(file, i+1, c); err != nil {
				return nil, err
			}
			body, inHead = nil, true
			continue
		}
		if q == nil {
			if strings.TrimSpace(line) != "" && !isComment {
				return nil, fmt.Errorf("%s:%d: a statement before the first -- name: line", file, i+1)
			}
			continue
		}
		if inHead && isComment {
			if err := q.parseHeadLine(file, i+1, c); err != nil {
				return nil, err
			}
			continue
		}
		if inHead && strings.TrimSpace(line) == "" {
			continue
		}
		if inHead {
			inHead, q.sqlLine = false, i+1
		}
		body = append(body, line)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// parseNameLine reads "name: NAME :mode".
func parseNameLine(file string, line int, c string) (*Query, error) {
	f := strings.Fields(strings.TrimPrefix(c, "name:"))
	if len(f) != 2 {
		return nil, fmt.Errorf("%s:%d: want -- name: NAME :many|:one|:exec", file, line)
	}
	q := &Query{Name: f[0], File: file, Line: line}
	if err := toolname.Check(q.Name); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", file, line, err)
	}
	switch f[1] {
	case ":many":
		q.Mode = Many
	case ":one":
		q.Mode = One
	case ":exec":
		q.Mode = Exec
	default:
		return nil, fmt.Errorf("%s:%d: query %s: mode %q: want :many, :one or :exec", file, line, q.Name, f[1])
	}
	return q, nil
}

// parseHeadLine reads a comment line between the name and the statement.
func (q *Query) parseHeadLine(file string, line int, c string) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: query %s: %s", file, line, q.Name, fmt.Sprintf(format, args...))
	}
	if !strings.HasPrefix(c, "@") {
		if c != "" {
			q.Description = strings.TrimSpace(q.Description + " " + c)
		}
		return nil
	}
	word, rest, _ := strings.Cut(c, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "@title":
		q.Title = rest
	case "@max_rows":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > MaxTop {
			return fail("@max_rows wants a number from 1 to %d", MaxTop)
		}
		q.MaxRows = n
	case "@column":
		f := strings.Fields(rest)
		if len(f) != 2 {
			return fail("want @column NAME TYPE")
		}
		t, ok := typeNamed(f[1])
		if !ok && strings.EqualFold(f[1], "json") {
			t, ok = JSON, true // a result column's value served as JSON
		}
		if !ok {
			return fail("@column %s: unknown type %q (text, integer, number, boolean, timestamp, date, uuid, json)", f[0], f[1])
		}
		q.Columns = append(q.Columns, QueryColumn{Name: f[0], Type: t})
	case "@groups":
		if q.Groups != nil {
			return fail("@groups given twice")
		}
		q.Groups = []string{}
		for _, g := range strings.Fields(rest) {
			if err := ferry.ValidGroupName(g); err != nil {
				return fail("@groups: %v", err)
			}
			if !slices.Contains(q.Groups, g) {
				q.Groups = append(q.Groups, g)
			}
		}
	case "@param":
		p, err := parseParam(rest)
		if err != nil {
			return fail("%s", err)
		}
		if slices.ContainsFunc(q.Params, func(o QueryParam) bool { return o.Name == p.Name }) {
			return fail("@param %s declared twice", p.Name)
		}
		q.Params = append(q.Params, p)
	default:
		return fail("unknown %s (want @param, @column, @max_rows, @title or @groups)", word)
	}
	return nil
}

// typeNamed reads a type's name.
func typeNamed(s string) (Type, bool) {
	for t := Text; t <= UUID; t++ {
		if strings.EqualFold(t.String(), s) {
			return t, true
		}
	}
	return 0, false
}

// parseParam reads "NAME [TYPE] [key:"value"...] [description]".
func parseParam(s string) (QueryParam, error) {
	var p QueryParam
	name, rest, _ := strings.Cut(s, " ")
	p.Name, rest = name, strings.TrimSpace(rest)
	if !validParamName(name) {
		return p, fmt.Errorf("@param %q: a name is letters, digits and _, led by a letter or _", name)
	}
	if w, r, _ := strings.Cut(rest, " "); w != "" {
		if t, ok := typeNamed(w); ok {
			p.Type, rest = t, strings.TrimSpace(r)
		}
	}
	for {
		key, val, after, ok := cutKey(rest)
		if !ok {
			break
		}
		if err := p.setKey(key, val); err != nil {
			return p, fmt.Errorf("@param %s: %s: %w", p.Name, key, err)
		}
		rest = strings.TrimSpace(after)
	}
	p.Description = rest
	return p, nil
}

// cutKey reads a leading key:"value" (the value a Go string literal).
func cutKey(s string) (key, val, rest string, ok bool) {
	i := strings.Index(s, ":\"")
	if i <= 0 || strings.ContainsAny(s[:i], " \t") {
		return "", "", s, false
	}
	prefix, err := strconv.QuotedPrefix(s[i+1:])
	if err != nil {
		return "", "", s, false
	}
	v, _ := strconv.Unquote(prefix)
	return s[:i], v, s[i+1+len(prefix):], true
}

func (p *QueryParam) setKey(key, val string) error {
	num := func() (*float64, error) {
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, errors.New("want a number")
		}
		return &f, nil
	}
	count := func() (*int, error) {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return nil, errors.New("want a whole number, 0 or more")
		}
		return &n, nil
	}
	var err error
	switch key {
	case "minimum":
		p.Minimum, err = num()
	case "maximum":
		p.Maximum, err = num()
	case "minLength":
		p.MinLength, err = count()
	case "maxLength":
		p.MaxLength, err = count()
	case "pattern":
		p.Pattern = val
	case "enum":
		p.Enum = strings.Split(val, ",")
	case "default":
		if !json.Valid([]byte(val)) {
			return errors.New(`want a JSON value, such as default:"10" or default:"\"NL\""`)
		}
		p.Default = json.RawMessage(val)
	case "nullable":
		p.Nullable, err = strconv.ParseBool(val)
	default:
		return errors.New("unknown key (minimum, maximum, minLength, maxLength, pattern, enum, default, nullable)")
	}
	return err
}

func validParamName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
