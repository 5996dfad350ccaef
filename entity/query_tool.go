package entity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

// queryTool is a query as a Set serves it.
type queryTool struct {
	set    *Set
	q      *Query
	t      *table // the query's transactions and refusals, as an entity's
	p      *preparedSQL
	params []QueryParam // in the order of p.names
	cols   []queryCol
	max    int
	maxRes int
}

// AddQuery checks q against the database and registers its tool. The
// statement is read as the engine reads it and refused unless it is one
// read (SELECT, WITH ... SELECT, VALUES) or, as an [Exec] query on a Set
// that is not read-only, one write (INSERT, UPDATE, DELETE, MERGE,
// REPLACE); then the database prepares it, infers or checks the types of
// its parameters, and describes the columns of a read. Any failure names
// the query's file and line. A read runs in a read-only transaction
// under the Set's timeout and returns at most MaxRows rows, saying
// hasMore when it stopped there; a write runs in a transaction and
// returns rowsAffected. The tool's hints follow: a read is read-only, a
// write that may delete or overwrite (DELETE, MERGE, REPLACE) is
// destructive, another additive; none is idempotent.
func (s *Set) AddQuery(ctx context.Context, q *Query) error {
	if q == nil {
		return errors.New("entity: AddQuery of a nil query")
	}
	qc := *q
	qt, err := s.newQueryTool(ctx, &qc)
	if err != nil {
		return err
	}
	s.srv.AddTool(qt.tool(), refusing(qt.call))
	return nil
}

func (s *Set) newQueryTool(ctx context.Context, q *Query) (*queryTool, error) {
	switch {
	case q.Mode < Many || q.Mode > Exec:
		return nil, fmt.Errorf("%sunknown mode", q.where())
	case q.MaxRows < 0 || q.MaxRows > MaxTop:
		return nil, fmt.Errorf("%sMaxRows must be from 0 to %d", q.where(), MaxTop)
	}
	p, err := prepareSQL(q, s.d.engine())
	if err != nil {
		return nil, err
	}
	c := p.class
	switch {
	case c.Write && q.Mode != Exec:
		return nil, fmt.Errorf("%sa %s query must only read, and this statement writes (%s); a write is an :exec query", q.where(), q.Mode, c.Verb)
	case !c.Write && len(c.Writes) > 0:
		return nil, fmt.Errorf("%sa read must not hold %s (a write, or a locking FOR UPDATE)", q.where(), c.Writes[0])
	case !c.Write && q.Mode == Exec:
		return nil, fmt.Errorf("%san :exec query must write; this statement only reads (%s): make it :many or :one", q.where(), c.Verb)
	case c.Write && s.ro:
		return nil, fmt.Errorf("%sthe statement writes (%s) and the Set is read-only", q.where(), c.Verb)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	qt := &queryTool{set: s, q: q, t: s.queryTable(q), p: p, max: q.MaxRows, maxRes: DefaultMaxResultBytes}
	if qt.max == 0 {
		qt.max = DefaultQueryRows
	}
	if qt.params, err = s.describeParams(ctx, q, p); err != nil {
		return nil, err
	}
	if err := qt.checkDefaults(); err != nil {
		return nil, err
	}
	if !c.Write {
		if qt.cols, err = s.describeColumns(ctx, q, p); err != nil {
			return nil, err
		}
	}
	return qt, nil
}

// queryTable is the entity-like table whose transactions and refusals a
// query uses: it carries the Set, the query's name and the Set's
// statement timeout.
func (s *Set) queryTable(q *Query) *table {
	return &table{set: s, d: s.d, e: &Entity{Name: q.Name}, o: &Options{}, timeout: s.timeout}
}

// checkDefaults refuses a default that the parameter's type refuses.
func (qt *queryTool) checkDefaults() error {
	for _, p := range qt.params {
		if p.Default == nil {
			continue
		}
		if _, err := qt.bindValue(p, p.Default); err != nil {
			return fmt.Errorf("%s@param %s: default %s %w", qt.q.where(), p.Name, p.Default, err)
		}
	}
	return nil
}

// groups are the groups of the query's tool: [Query.Groups], else
// [SetOptions.Groups], else none.
func (qt *queryTool) groups() []string {
	switch {
	case qt.q.Groups != nil:
		return slices.Clone(qt.q.Groups)
	case qt.set.groups != nil:
		return qt.set.groupsOf()
	}
	return []string{} // none: not the group of this package, which would be every query's
}

// tool is the query's tool, with its hints.
func (qt *queryTool) tool() ferry.Tool {
	c := qt.p.class
	tool := ferry.Tool{Name: qt.q.Name, Title: qt.q.Title, Description: qt.describe(), ClosedWorld: true,
		InputSchema: qt.inputSchema(), OutputSchema: qt.outputSchema(),
		Scopes: slices.Clone(qt.q.Access.Scopes), Roles: slices.Clone(qt.q.Access.Roles), TaskSupport: qt.q.TaskSupport,
		Groups: qt.groups()}
	switch {
	case !c.Write:
		tool.ReadOnly = true
	case !c.Destructive:
		tool.Additive = true
	}
	if c.Write {
		// An UPDATE is additive by the hints, but it overwrites values: a
		// server that confirms destructive calls confirms it too.
		if c.Verb == "UPDATE" {
			tool.Confirm = ferry.ConfirmWrites
		}
		if qt.q.Confirm != ferry.ConfirmDestructive {
			tool.Confirm = qt.q.Confirm
		}
		tool.Summarize = summary("Runs this statement on the database: " + strings.Join(strings.Fields(qt.q.SQL), " "))
	}
	return tool
}

// describe is the tool's description.
func (qt *queryTool) describe() string {
	d := qt.q.Description
	switch {
	case qt.p.class.Write:
		d += " Changes data; returns rowsAffected."
	case qt.q.Mode == One:
		d += " Returns one row in data, or a not-found refusal."
	default:
		d += " Returns up to " + strconv.Itoa(qt.max) + " rows in data; hasMore says there were more."
	}
	return clip(d, 1000)
}

// call serves the query's tool.
func (qt *queryTool) call(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	args, err := decodeArgs(req.Arguments)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(qt.params))
	for i, p := range qt.params {
		raw, given := args[p.Name]
		if !given && p.Default != nil {
			raw = p.Default
		}
		v, err := qt.bindValue(p, raw)
		if err != nil {
			return nil, invalidField(p.Name, "%s", err)
		}
		vals[i] = v
	}
	for name := range args {
		if !qt.hasParam(name) {
			return nil, invalidField(name, "the tool has no such argument")
		}
	}
	bound := qt.p.args(vals)
	var out []byte
	if qt.p.class.Write {
		err = qt.t.run(ctx, false, func(ctx context.Context, tx Querier) error {
			out, err = qt.exec(ctx, tx, bound)
			return err
		})
	} else {
		err = qt.t.run(ctx, true, func(ctx context.Context, tx Querier) error {
			out, err = qt.read(ctx, tx, bound)
			return err
		})
	}
	if err != nil {
		return nil, qt.refusal(err)
	}
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(out))}, StructuredContent: json.RawMessage(out)}, nil
}

func (qt *queryTool) hasParam(name string) bool {
	for _, p := range qt.params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// bindValue turns a call's JSON value (decoded with UseNumber, or raw
// JSON for a default) into the argument bound for p.
func (qt *queryTool) bindValue(p QueryParam, v any) (any, error) {
	if raw, ok := v.(json.RawMessage); ok {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, errors.New("is not JSON")
		}
	}
	if v == nil {
		return nil, nil
	}
	if p.Type == Text {
		if _, ok := v.(string); !ok {
			return nil, errors.New("must be a string")
		}
	}
	return encode(qt.set.d.engine(), p.Type, v)
}

// read runs a read and writes {"data": [...], "hasMore": b}, or for a
// :one query {"data": {...}}.
func (qt *queryTool) read(ctx context.Context, tx Querier, args []any) ([]byte, error) {
	text := qt.p.text
	limit := qt.max
	if qt.q.Mode == One {
		limit = 1
	}
	if !qt.p.class.Limited {
		// Our own number, never a call's.
		text += " LIMIT " + strconv.Itoa(limit+1)
	}
	rows, err := tx.QueryContext(ctx, qt.set.d.statement(text, qt.set.timeout), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vals, ptrs := scanTargets(len(qt.cols))
	b := make([]byte, 0, 1024)
	b = append(b, `{"data":`...)
	if qt.q.Mode == One {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return nil, err
			}
			return nil, &ferry.Refusal{Code: ferry.RefusalNotFound, Message: "no row matches the arguments"}
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		b = qt.appendRow(b, vals)
		return append(b, '}'), rows.Close()
	}
	b = append(b, '[')
	n, more := 0, false
	for rows.Next() {
		if n == limit {
			more = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		before := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = qt.appendRow(b, vals)
		if n > 0 && len(b) > qt.maxRes {
			b, more = b[:before], true
			break
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	b = append(b, `],"hasMore":`...)
	b = strconv.AppendBool(b, more)
	return append(b, '}'), rows.Close()
}

// appendRow appends one row as a JSON object.
func (qt *queryTool) appendRow(b []byte, vals []any) []byte {
	b = append(b, '{')
	for i, c := range qt.cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c.member...)
		if c.typ == 0 {
			b = appendAny(b, vals[i])
		} else {
			b = appendValue(b, c.typ, vals[i])
		}
	}
	return append(b, '}')
}

// appendAny appends a value whose column has no known type as what the
// driver scanned: a number, a boolean, a time as RFC 3339, else text.
func appendAny(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64, float64:
		return appendNumber(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case time.Time:
		return appendValue(b, Timestamp, x)
	}
	return appendString(b, textOf(v))
}

// exec runs a write and writes {"rowsAffected": n}.
func (qt *queryTool) exec(ctx context.Context, tx Querier, args []any) ([]byte, error) {
	res, err := tx.ExecContext(ctx, qt.set.d.statement(qt.p.text, qt.set.timeout), args...)
	if err != nil {
		return nil, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, err
	}
	return append(strconv.AppendInt([]byte(`{"rowsAffected":`), n, 10), '}'), nil
}

// refusal turns what a query's database refuses into a refusal the model
// can act on; the rest stays masked (run's dbError did the timeouts).
func (qt *queryTool) refusal(err error) error {
	var de *dbErr
	if !errors.As(err, &de) {
		return err
	}
	switch classify(de.err) {
	case readOnlyHit:
		return &ferry.Refusal{Code: ferry.RefusalForbidden, Message: "the query tried to write, and it runs in a read-only transaction"}
	case uniqueViolation:
		return &ferry.Refusal{Code: ferry.RefusalConflict, Message: "a row with these values exists"}
	case foreignKeyViolation:
		return &ferry.Refusal{Code: ferry.RefusalConflict, Message: "the change would leave a reference to a row that does not exist"}
	case notNullViolation:
		return &ferry.Refusal{Code: ferry.RefusalInvalid, Message: "a required value is missing or null"}
	case checkViolation:
		return &ferry.Refusal{Code: ferry.RefusalInvalid, Message: "the values break a check of the table"}
	}
	return err
}
