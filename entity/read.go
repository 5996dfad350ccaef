package entity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity/internal/filter"
)

// decodeArgs decodes a call's arguments object, numbers as json.Number.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, ferry.Invalid("the arguments are not a JSON object")
	}
	return args, nil
}

// decodeInto reads a read tool's arguments into in. The core has checked
// them against the tool's schema, so what can still fail is a number the
// schema allows but an int64 cannot hold (a skip of 2^63, 1e30): the
// refusal names that field and its range rather than the whole call.
func decodeInto(raw json.RawMessage, in any) error {
	if len(raw) == 0 {
		return nil
	}
	err := json.Unmarshal(raw, in)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		if lit, ok := strings.CutPrefix(te.Value, "number "); ok {
			return invalidField(te.Field, "%s is out of range: it must be a whole number from 0 to %d", lit, int64(math.MaxInt64))
		}
		return invalidField(te.Field, "%s does not fit this field", te.Value)
	}
	return ferry.Invalid("the arguments do not fit the tool's schema")
}

// identity finds the field and value naming one record: the key or the
// natural key, exactly one of them (both for an update, where the key
// names the record and the natural key is a new value).
func (t *table) identity(args map[string]any, op Op) (*Field, any, error) {
	var kv, nv any
	var hasK, hasN bool
	if t.key != nil {
		kv, hasK = args[t.key.Name]
	}
	if t.natural != nil {
		nv, hasN = args[t.natural.Name]
	}
	switch {
	case hasK && hasN && op != Update:
		return nil, nil, ferry.Invalid(fmt.Sprintf("give %s or %s, not both", t.key.Name, t.natural.Name))
	case hasK:
		return t.key, kv, nil
	case hasN:
		return t.natural, nv, nil
	}
	_, how := t.identify()
	return nil, nil, ferry.Invalid(how)
}

// notFound refuses a key no record has (in the caller's scope).
func (t *table) notFound(f *Field, v any) error {
	return ferry.NotFound(fmt.Sprintf("no %s with %s %s", t.e.Name, f.Name, showValue(v)))
}

// scopeValue is the caller's value of the scope field, encoded, or nil
// when the entity has no scope.
func (t *table) scopeValue(ctx context.Context) (any, error) {
	if t.scope == nil {
		return nil, nil
	}
	p, _ := ferry.PrincipalFromContext(ctx)
	v, err := t.o.Scope.Value(ctx, p)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, ferry.Forbidden("this caller may not use " + t.e.Plural)
	}
	return v, nil
}

// scoped adds the scope's condition to w, if the entity has a scope.
func (t *table) scoped(q *query, w *where, scope any) error {
	if t.scope == nil {
		return nil
	}
	enc, err := encode(t.d.engine(), t.scope.Type, scope)
	if err != nil {
		return fmt.Errorf("entity: %s: the scope's value: %w", t.e.Name, err)
	}
	w.and(t.equals(q, t.scope, t.col(t.scope), enc))
	return nil
}

func (t *table) beforeRead(ctx context.Context, tx Querier, op Op) error {
	if t.o.Hooks.BeforeRead == nil {
		return nil
	}
	p, _ := ferry.PrincipalFromContext(ctx)
	return t.o.Hooks.BeforeRead(ctx, &Read{Entity: t.e, Op: op, Tx: tx, Principal: p})
}

// get serves get_X.
func (t *table) get(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	args, err := decodeArgs(req.Arguments)
	if err != nil {
		return nil, err
	}
	expand, err := expandArgument(args)
	if err != nil {
		return nil, err
	}
	xs, err := t.expansions(ctx, expand)
	if err != nil {
		return nil, err
	}
	f, v, err := t.identity(args, Get)
	if err != nil {
		return nil, err
	}
	enc, err := encode(t.d.engine(), f.Type, v)
	if err != nil {
		return nil, invalidField(f.Name, "%s", err)
	}
	scope, err := t.scopeValue(ctx)
	if err != nil {
		return nil, err
	}
	var rec []byte
	err = t.run(ctx, true, func(ctx context.Context, tx Querier) error {
		if err := t.beforeRead(ctx, tx, Get); err != nil {
			return err
		}
		q, w := &query{d: t.d}, &where{}
		if err := t.scoped(q, w, scope); err != nil {
			return err
		}
		w.and(t.equals(q, f, t.col(f), enc))
		r, _, found, err := t.selectOne(ctx, tx, w, q)
		switch {
		case err != nil:
			return t.dbError(err)
		case !found:
			return t.notFound(f, v)
		}
		rec = r
		if len(xs) > 0 {
			rec, err = t.expandOne(ctx, tx, r, xs)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return oneResult(rec), nil
}

// oneResult is {"data": record}, as text and structured content.
func oneResult(rec []byte) *ferry.ToolResult {
	b := make([]byte, 0, len(rec)+10)
	b = append(b, `{"data":`...)
	b = append(b, rec...)
	b = append(b, '}')
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(b))}, StructuredContent: json.RawMessage(b)}
}

// listArgs are list's arguments.
type listArgs struct {
	Filter  string   `json:"filter"`
	Search  string   `json:"search"`
	OrderBy string   `json:"orderBy"`
	Skip    int64    `json:"skip"`
	Top     int64    `json:"top"`
	Expand  []string `json:"expand"`
}

// checkPage refuses a page's top and skip outside their ranges.
func checkPage(top, skip int64) error {
	switch {
	case top < 1 || top > MaxTop:
		return invalidField("top", "must be from 1 to %d, got %d", MaxTop, top)
	case skip < 0:
		return invalidField("skip", "must be at least 0, got %d", skip)
	}
	return nil
}

// list serves list_Xs.
func (t *table) list(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	in := listArgs{Top: DefaultTop}
	if err := decodeInto(req.Arguments, &in); err != nil {
		return nil, err
	}
	if err := checkPage(in.Top, in.Skip); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(in.Search) > MaxSearchText {
		return nil, invalidField("search", "must be at most %d characters", MaxSearchText)
	}
	order, err := t.parseOrder(in.OrderBy)
	if err != nil {
		return nil, err
	}
	xs, err := t.expansions(ctx, in.Expand)
	if err != nil {
		return nil, err
	}
	scope, err := t.scopeValue(ctx)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = t.run(ctx, true, func(ctx context.Context, tx Querier) error {
		if err := t.beforeRead(ctx, tx, List); err != nil {
			return err
		}
		out, err = t.page(ctx, tx, &in, order, scope, xs)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(out))}, StructuredContent: json.RawMessage(out)}, nil
}

// conditions writes the list's WHERE clause into q and returns it with
// the search's rank expression: the scope, the filter, the search, in
// that order (so that positional placeholders follow the text).
func (t *table) conditions(ctx context.Context, q *query, in *listArgs, scope any, forCount bool) (string, string, error) {
	var joins string
	if in.Filter != "" {
		var err error
		if joins, err = t.joins(ctx, q, in.Filter); err != nil {
			return "", "", err
		}
	}
	w := &where{}
	if err := t.scoped(q, w, scope); err != nil {
		return "", "", err
	}
	if in.Filter != "" {
		cond, err := t.filterCond(q, in.Filter)
		if err != nil {
			return "", "", err
		}
		w.and(cond)
	}
	var rank string
	if in.Search != "" && t.o.Searcher != nil {
		var cond, r string
		var err error
		if c, ok := t.o.Searcher.(conditioner); ok && forCount {
			cond, err = c.Condition(t.e, alias, in.Search, q.bind)
		} else {
			cond, r, err = t.o.Searcher.Match(t.e, alias, in.Search, q.bind)
		}
		if err != nil {
			return "", "", searchRefusal(err)
		}
		w.and(cond)
		rank = r
	}
	return joins + w.String(), rank, nil
}

// filterCond translates a filter into a condition, its literals bound
// in q through this package's encoding.
func (t *table) filterCond(q *query, expr string) (string, error) {
	env, cols, rels := t.filterEnv()
	if env == nil {
		return "", invalidField("filter", "%s has no filterable fields", t.e.Plural)
	}
	var bad error
	cond, err := env.Translate(expr, filter.Engine(t.d.engine()),
		func(i int) string { return t.column(cols[i], rels) },
		func(v any, ft filter.Type) string {
			enc, err := encode(t.d.engine(), Type(ft), v)
			if err != nil && bad == nil {
				bad = err
			}
			return q.bind(enc)
		})
	switch {
	case err != nil:
		msg := "filter: " + strings.TrimPrefix(err.Error(), "invalid filter: ")
		return "", &fieldError{code: ferry.RefusalInvalid, path: "filter", msg: msg, cause: err}
	case bad != nil:
		return "", invalidField("filter", "a literal %s", bad)
	}
	return cond, nil
}

// searchRefusal is a Searcher's refusal of a search text as the refusal of
// the search argument: its own code if it is a [ferry.Refusal] (else
// invalid) and its sentence, said once ("search: give at least one word",
// not "invalid: search: invalid: search: give ...").
func searchRefusal(err error) error {
	code, msg := ferry.RefusalInvalid, err.Error()
	var r *ferry.Refusal
	if errors.As(err, &r) {
		code, msg = r.Code, r.Message
	}
	if !strings.HasPrefix(msg, "search") {
		msg = "search: " + msg
	}
	return &fieldError{code: code, path: "search", msg: msg, cause: err}
}

// conditioner is a Searcher that gives its condition alone, binding
// nothing for a rank, for count queries.
type conditioner interface {
	Condition(e *Entity, alias, text string, bind func(v any) string) (string, error)
}

// page reads one page and, unless skipped, the total count, and writes
// the list result.
func (t *table) page(ctx context.Context, tx Querier, in *listArgs, order []orderTerm, scope any, xs []expansion) ([]byte, error) {
	q := &query{d: t.d}
	whereSQL, rank, err := t.conditions(ctx, q, in, scope, false)
	if err != nil {
		return nil, err
	}
	q.add("SELECT ", t.cols, " FROM ", t.from, whereSQL, t.orderSQL(order, rank),
		t.d.paging(q.bind(in.Top+1), q.bind(in.Skip)))
	rows, err := tx.QueryContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...)
	if err != nil {
		return nil, t.dbError(err)
	}
	defer rows.Close()
	b := make([]byte, 0, 4096)
	b = append(b, `{"data":[`...)
	var n int
	var more bool
	if len(xs) > 0 {
		b, n, more, err = t.scanExpanded(ctx, tx, rows, b, int(in.Top), t.maxRes, xs)
	} else {
		b, n, more, err = t.scanRows(rows, b, int(in.Top), t.maxRes)
	}
	if err != nil {
		return nil, t.dbError(err)
	}
	b = append(b, `],"paging":{`...)
	if !t.o.SkipTotalCount {
		total := in.Skip + int64(n)
		if more || (n == 0 && in.Skip > 0) {
			if total, err = t.count(ctx, tx, in, scope); err != nil {
				return nil, err
			}
		}
		b = append(b, `"totalCount":`...)
		b = strconv.AppendInt(b, total, 10)
		b = append(b, ',')
	}
	b = append(b, `"skip":`...)
	b = strconv.AppendInt(b, in.Skip, 10)
	b = append(b, `,"top":`...)
	b = strconv.AppendInt(b, in.Top, 10)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, more)
	return append(b, "}}"...), nil
}

// count counts the rows the list's conditions keep.
func (t *table) count(ctx context.Context, tx Querier, in *listArgs, scope any) (int64, error) {
	q := &query{d: t.d}
	whereSQL, rank, err := t.conditions(ctx, q, in, scope, true)
	if err != nil {
		return 0, err
	}
	if rank != "" {
		// The rank's values, bound after the condition's, must appear
		// after it: a condition always true that mentions it.
		whereSQL += " AND (CASE WHEN (" + rank + ") IS NULL THEN 1 ELSE 1 END) = 1"
	}
	q.add("SELECT COUNT(*) FROM ", t.from, whereSQL)
	var n int64
	if err := tx.QueryRowContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...).Scan(&n); err != nil {
		return 0, t.dbError(err)
	}
	return n, nil
}
