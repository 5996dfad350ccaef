package entity

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// This file serves aggregate_<plural>: count, sum, avg, min and max over
// the records a filter keeps, as a whole or grouped by up to
// [MaxGroupBy] filterable fields, dates by day, month or year. Every
// name of a call (an aggregate, a group, an orderBy term) is looked up
// among those the entity offers, built once at registration; only the
// model's SQL for them reaches the statement, and values are bound.
//
// The answer is the same on every engine:
//
//   - Groups are told apart as filters compare: text by code point
//     (whatever the column's collation folds), a number JSON cannot write
//     (NaN, the infinities) as a null, which groups with the nulls.
//   - sum and avg skip nulls; over no value sum, avg, min and max are
//     null, and count is 0. A sum is the engine's exact one for integers
//     and fixed-point columns. avg is that sum divided by the values
//     summed, as a double, computed here rather than by the engine (whose
//     averages differ in type and digits).
//   - min and max of text are by code point; of a date or timestamp,
//     chronological.
//   - A date or timestamp grouped by day, month or year is the first day
//     of it, YYYY-MM-DD, in UTC.

// MaxGroupBy is the most fields an aggregate call groups by.
const MaxGroupBy = 3

// MaxAggregates is the most aggregates one call asks for.
const MaxAggregates = 20

// measure is one aggregate a call may ask for: count, or fn(field).
type measure struct {
	name string // as calls and results name it: "count", "sum(cost)"
	fn   string // count, sum, avg, min or max
	f    *Field // nil for count
}

// grouping is one way to group records: by a field, or by the day, month
// or year of a date or timestamp field.
type grouping struct {
	name string // as calls and results name it: "category_id", "created_at:month"
	f    *Field
	by   string // "", "day", "month" or "year"
}

// aggregation is what an entity's aggregate tool offers, built once.
type aggregation struct {
	measures  map[string]*measure
	mnames    []string // in the order the schema lists them
	groupings map[string]*grouping
	gnames    []string
}

// aggregatable says whether the entity gets an aggregate tool.
func (t *table) aggregatable() bool { return t.agg != nil }

// newAggregates builds the aggregation of an entity with an Aggregatable
// field, refusing one whose type nothing aggregates.
func (t *table) newAggregates() error {
	a := &aggregation{measures: map[string]*measure{}, groupings: map[string]*grouping{}}
	add := func(fn string, f *Field) {
		m := &measure{name: fn, fn: fn, f: f}
		if f != nil {
			m.name = fn + "(" + f.Name + ")"
		}
		a.measures[m.name] = m
		a.mnames = append(a.mnames, m.name)
	}
	add("count", nil)
	some := false
	for _, f := range t.e.Fields {
		if !f.Aggregatable {
			continue
		}
		some = true
		switch f.Type {
		case Integer, Number:
			add("sum", f)
			add("avg", f)
		case Text, Date, Timestamp:
		default:
			return fmt.Errorf("entity: %s.%s: a %s field cannot be aggregated (sum and avg take integers and numbers; min and max those, text, dates and timestamps)",
				t.e.Name, f.Name, f.Type)
		}
		add("min", f)
		add("max", f)
	}
	if !some {
		return nil
	}
	for _, f := range t.e.Fields {
		if !f.Filterable || structured(f.Type) {
			continue
		}
		bys := []string{""}
		if f.Type == Date || f.Type == Timestamp {
			bys = append(bys, "day", "month", "year")
		}
		for _, by := range bys {
			g := &grouping{name: f.Name, f: f, by: by}
			if by != "" {
				g.name += ":" + by
			}
			a.groupings[g.name] = g
			a.gnames = append(a.gnames, g.name)
		}
	}
	t.agg = a
	return nil
}

// aggregateArgs are aggregate's arguments.
type aggregateArgs struct {
	Aggregates []string `json:"aggregates"`
	GroupBy    []string `json:"groupBy"`
	Filter     string   `json:"filter"`
	OrderBy    string   `json:"orderBy"`
	Skip       int64    `json:"skip"`
	Top        int64    `json:"top"`
}

// aggregateCall is a call's arguments, checked against the aggregation.
type aggregateCall struct {
	measures []*measure
	groups   []*grouping
	order    []string // ORDER BY terms
	// byMeasure says the call orders groups by an aggregate.
	byMeasure bool
}

// aggregate serves aggregate_Xs.
func (t *table) aggregate(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	in := aggregateArgs{Top: DefaultTop}
	if err := decodeInto(req.Arguments, &in); err != nil {
		return nil, err
	}
	if err := checkPage(in.Top, in.Skip); err != nil {
		return nil, err
	}
	call, err := t.checkAggregate(&in)
	if err != nil {
		return nil, err
	}
	scope, err := t.scopeValue(ctx)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = t.run(ctx, true, func(ctx context.Context, tx Querier) error {
		if err := t.beforeRead(ctx, tx, Aggregate); err != nil {
			return err
		}
		out, err = t.groups(ctx, tx, &in, call, scope)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(string(out))}, StructuredContent: json.RawMessage(out)}, nil
}

// checkAggregate looks the call's names up, refusing any the entity does
// not offer, and writes its ORDER BY terms.
func (t *table) checkAggregate(in *aggregateArgs) (*aggregateCall, error) {
	c := &aggregateCall{}
	if len(in.Aggregates) == 0 {
		in.Aggregates = []string{"count"}
	}
	if len(in.Aggregates) > MaxAggregates {
		return nil, invalidField("aggregates", "at most %d, got %d", MaxAggregates, len(in.Aggregates))
	}
	if len(in.GroupBy) > MaxGroupBy {
		return nil, invalidField("groupBy", "at most %d fields, got %d", MaxGroupBy, len(in.GroupBy))
	}
	named := map[string]string{} // a name of the call to its SQL
	nullable := map[string]bool{}
	for i, name := range in.Aggregates {
		m := t.agg.measures[name]
		if m == nil {
			return nil, invalidField("aggregates["+itoa(i)+"]", "%q is not an aggregate of %s; choose from %s", clip(name, 40), t.e.Plural, strings.Join(t.agg.mnames, ", "))
		}
		if _, dup := named[name]; dup {
			return nil, invalidField("aggregates["+itoa(i)+"]", "%s is given twice", name)
		}
		c.measures = append(c.measures, m)
		named[name], nullable[name] = t.measureOrder(m), m.fn != "count"
	}
	for i, name := range in.GroupBy {
		g := t.agg.groupings[name]
		if g == nil {
			return nil, invalidField("groupBy["+itoa(i)+"]", "%q is not a field %s may be grouped by; choose from %s", clip(name, 40), t.e.Plural, strings.Join(t.agg.gnames, ", "))
		}
		if _, dup := named[name]; dup {
			return nil, invalidField("groupBy["+itoa(i)+"]", "%s is given twice", name)
		}
		c.groups = append(c.groups, g)
		named[name], nullable[name] = t.groupExpr(g), true
	}
	ordered := map[string]bool{}
	if strings.TrimSpace(in.OrderBy) != "" {
		for part := range strings.SplitSeq(in.OrderBy, ",") {
			words := strings.Fields(part)
			if len(words) == 0 || len(words) > 2 {
				return nil, t.aggOrderError(c, fmt.Sprintf("%q is not a name optionally followed by asc or desc", clip(strings.TrimSpace(part), 40)))
			}
			expr, ok := named[words[0]]
			switch {
			case !ok:
				return nil, t.aggOrderError(c, fmt.Sprintf("%q is neither a group nor an aggregate of the call", clip(words[0], 40)))
			case ordered[words[0]]:
				return nil, t.aggOrderError(c, words[0]+" is given twice")
			}
			ordered[words[0]] = true
			c.byMeasure = c.byMeasure || t.agg.measures[words[0]] != nil
			desc := false
			if len(words) == 2 {
				switch strings.ToLower(words[1]) {
				case "asc":
				case "desc":
					desc = true
				default:
					return nil, t.aggOrderError(c, fmt.Sprintf("%q after %s is neither asc nor desc", clip(words[1], 20), words[0]))
				}
			}
			c.order = append(c.order, t.d.nullsOrder(expr, desc, nullable[words[0]]))
		}
	}
	// The groups decide every tie, so pages never overlap.
	for _, g := range c.groups {
		if !ordered[g.name] {
			c.order = append(c.order, t.d.nullsOrder(named[g.name], false, true))
		}
	}
	return c, nil
}

func (t *table) aggOrderError(c *aggregateCall, problem string) error {
	var names []string
	for _, g := range c.groups {
		names = append(names, g.name)
	}
	for _, m := range c.measures {
		names = append(names, m.name)
	}
	return &fieldError{code: ferry.RefusalInvalid, path: "orderBy",
		msg: "orderBy: " + problem + "; the call's groups and aggregates: " + strings.Join(names, ", ")}
}

// groups runs the aggregate statement and writes the result.
//
// A number column that may hold NaN or an infinity (PostgreSQL, SQLite)
// is aggregated without them, which costs a guard per row and aggregate.
// Unless the call orders by an aggregate, the statement first runs
// without the guard: when every group's aggregates of such a column come
// out finite (see clean), no value the guard would drop was there, and
// the answer is the same; otherwise it runs again with the guard.
func (t *table) groups(ctx context.Context, tx Querier, in *aggregateArgs, c *aggregateCall, scope any) ([]byte, error) {
	if !c.byMeasure && t.guarded(c) != nil {
		b, clean, err := t.groupsOnce(ctx, tx, in, c, scope, true)
		if err != nil || clean {
			return b, err
		}
	}
	b, _, err := t.groupsOnce(ctx, tx, in, c, scope, false)
	return b, err
}

// guarded lists the fields of c's sums, averages, least and greatest
// values that may hold a number JSON cannot write, once each.
func (t *table) guarded(c *aggregateCall) []*Field {
	var fs []*Field
	for _, m := range c.measures {
		if m.f != nil && t.nonFinite(m.f) && !slices.Contains(fs, m.f) {
			fs = append(fs, m.f)
		}
	}
	return fs
}

// groupsOnce runs the aggregate statement, without the guard when
// unguarded is set, and reports, then, whether every group's guarded
// columns held finite numbers only (clean).
func (t *table) groupsOnce(ctx context.Context, tx Querier, in *aggregateArgs, c *aggregateCall, scope any, unguarded bool) (_ []byte, clean bool, _ error) {
	q := &query{d: t.d}
	whereSQL, _, err := t.conditions(ctx, q, &listArgs{Filter: in.Filter}, scope, true)
	if err != nil {
		return nil, false, err
	}
	var sel, groupBy []string
	truncated := false
	for _, g := range c.groups {
		e := t.groupExpr(g)
		sel, groupBy = append(sel, e), append(groupBy, e)
		truncated = truncated || (g.by != "" && g.f.Type == Timestamp)
	}
	// An expression two aggregates need (sum(x) and avg(x) both sum x)
	// is selected once; cols holds each measure's columns.
	cols := make([][]int, len(c.measures))
	for k, m := range c.measures {
		for _, e := range t.measureSQLAs(m, unguarded) {
			i := slices.Index(sel[len(c.groups):], e)
			if i < 0 {
				sel = append(sel, e)
				i = len(sel) - len(c.groups) - 1
			}
			cols[k] = append(cols[k], len(c.groups)+i)
		}
	}
	// Unguarded, each guarded field's values counted, beside its
	// aggregates, tell whether one was not finite (see clean).
	counts := map[*Field]int{}
	if unguarded {
		for _, f := range t.guarded(c) {
			e := "COUNT(" + t.col(f) + ")"
			i := slices.Index(sel, e)
			if i < 0 {
				sel, i = append(sel, e), len(sel)
			}
			counts[f] = i
		}
	}
	q.add("SELECT ", strings.Join(sel, ", "), " FROM ", t.from, whereSQL)
	if len(groupBy) > 0 {
		q.add(" GROUP BY ", strings.Join(groupBy, ", "))
	}
	if len(c.order) > 0 {
		q.add(" ORDER BY ", strings.Join(c.order, ", "))
	}
	q.add(t.d.paging(q.bind(in.Top+1), q.bind(in.Skip)))
	if truncated && t.d.engine() == PostgreSQL {
		// A timestamptz's day is the session's: make it UTC's, for this
		// transaction only.
		if _, err := tx.ExecContext(ctx, "SET LOCAL TimeZone = 'UTC'"); err != nil {
			return nil, false, t.dbError(err)
		}
	}
	rows, err := tx.QueryContext(ctx, t.d.statement(q.sql.String(), t.set.timeout), q.args...)
	if err != nil {
		return nil, false, t.dbError(err)
	}
	defer rows.Close()
	vals, ptrs := scanTargets(len(sel))
	b := make([]byte, 0, 1024)
	b = append(b, `{"data":[`...)
	n, more := 0, false
	for rows.Next() {
		if n == int(in.Top) {
			more = true
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, false, t.dbError(err)
		}
		if unguarded && !t.clean(c, vals, cols, counts) {
			return nil, false, rows.Close()
		}
		before := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = appendGroup(b, c, vals, cols)
		if n > 0 && len(b) > t.maxRes {
			b, more = b[:before], true
			break
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return nil, false, t.dbError(err)
	}
	if err := rows.Close(); err != nil {
		return nil, false, t.dbError(err)
	}
	b = append(b, `],"paging":{"skip":`...)
	b = strconv.AppendInt(b, in.Skip, 10)
	b = append(b, `,"top":`...)
	b = strconv.AppendInt(b, in.Top, 10)
	b = append(b, `,"hasMore":`...)
	b = strconv.AppendBool(b, more)
	return append(b, "}}"...), true, nil
}

// clean reports whether a group's aggregates, computed over the bare
// columns, met no number JSON cannot write: the least and greatest
// values are finite (an infinity or NaN among the values would be one of
// them, or the least or greatest finite one is the same either way), and
// so is every sum (which such a value makes infinite or NaN; SQLite
// gives NaN as NULL, told from a sum of no value by the count).
func (t *table) clean(c *aggregateCall, vals []any, cols [][]int, counts map[*Field]int) bool {
	for k, m := range c.measures {
		if m.f == nil || !t.nonFinite(m.f) {
			continue
		}
		v := vals[cols[k][0]]
		if !allFinite([]any{v}) {
			return false
		}
		if (m.fn == "sum" || m.fn == "avg") && v == nil && vals[counts[m.f]] != nil && textOf(vals[counts[m.f]]) != "0" {
			return false
		}
	}
	return true
}

// allFinite reports whether no value of vals is a number JSON cannot
// write (NaN, an infinity), as a driver scans it.
func allFinite(vals []any) bool {
	for _, v := range vals {
		switch x := v.(type) {
		case float64:
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return false
			}
		case string, []byte:
			switch textOf(x) {
			case "NaN", "Infinity", "-Infinity":
				return false
			}
		}
	}
	return true
}

// appendGroup appends one group's JSON object: its groups' values, then
// its aggregates', vals holding the groups' first and cols[k] giving the
// columns of the k-th aggregate.
func appendGroup(b []byte, c *aggregateCall, vals []any, cols [][]int) []byte {
	b = append(b, '{')
	for i, g := range c.groups {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, g.name)
		b = append(b, ':')
		if g.by != "" {
			if vals[i] == nil {
				b = append(b, "null"...)
			} else {
				b = appendString(b, textOf(vals[i]))
			}
		} else {
			b = appendValue(b, g.f.Type, vals[i])
		}
	}
	for k, m := range c.measures {
		i := cols[k][0]
		if k > 0 || len(c.groups) > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.name)
		b = append(b, ':')
		switch m.fn {
		case "count", "sum":
			b = appendValue(b, Number, vals[i])
		case "avg":
			b = appendAverage(b, vals[i], vals[cols[k][1]])
		default:
			b = appendValue(b, m.f.Type, vals[i])
		}
	}
	return append(b, '}')
}

// appendAverage appends sum/count as a double, or null when nothing was
// summed.
func appendAverage(b []byte, sum, count any) []byte {
	n, err := strconv.ParseFloat(textOf(count), 64)
	if err != nil || n == 0 || sum == nil {
		return append(b, "null"...)
	}
	var s float64
	switch x := sum.(type) {
	case int64:
		s = float64(x)
	case float64:
		s = x
	default:
		if s, err = strconv.ParseFloat(textOf(x), 64); err != nil {
			return append(b, "null"...)
		}
	}
	avg := s / n
	if math.IsInf(avg, 0) || math.IsNaN(avg) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, avg, 'g', -1, 64)
}

// measureSQL is the SELECT terms of m: one, or a sum and a count for avg.
func (t *table) measureSQL(m *measure) []string { return t.measureSQLAs(m, false) }

// measureSQLAs is measureSQL, over the bare column of a number that may
// not be finite when unguarded is set.
func (t *table) measureSQLAs(m *measure, unguarded bool) []string {
	if m.fn == "count" {
		return []string{"COUNT(*)"}
	}
	v := t.aggValue(m.f)
	if unguarded && t.nonFinite(m.f) {
		v = t.col(m.f)
	}
	if m.fn == "avg" {
		return []string{"SUM(" + v + ")", "COUNT(" + v + ")"}
	}
	return []string{strings.ToUpper(m.fn) + "(" + v + ")"}
}

// measureOrder is the SQL ordering groups by m.
func (t *table) measureOrder(m *measure) string {
	if m.fn == "avg" {
		v := t.aggValue(m.f)
		if t.d.engine() == PostgreSQL {
			v = "CAST(" + v + " AS double precision)"
		}
		return "AVG(" + v + ")"
	}
	return t.measureSQL(m)[0]
}

// aggValue is f's value as groups and aggregates see it: text exactly,
// by code point, and a number JSON cannot write as NULL.
func (t *table) aggValue(f *Field) string {
	col := t.col(f)
	switch {
	case f.Type == Text || (f.Type == UUID && t.d.engine() != PostgreSQL):
		switch t.d.engine() {
		case PostgreSQL:
			return "CAST(" + col + ` AS text) COLLATE "C"`
		case MySQL:
			return "CAST(CONVERT(" + col + " USING utf8mb4) AS BINARY)"
		}
		return col + " COLLATE BINARY"
	case t.nonFinite(f) && t.d.engine() == SQLite:
		// 9e999 is SQLite's infinity; a NaN it stores as NULL.
		return "NULLIF(NULLIF(" + col + ", 9e999), -9e999)"
	case t.nonFinite(f):
		return "CASE WHEN CAST(" + col + " AS text) IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE " + col + " END"
	}
	return col
}

// groupExpr is the SQL of a grouping: the field's value, or the first
// day of its day, month or year as YYYY-MM-DD text. The formats are this
// file's constants.
func (t *table) groupExpr(g *grouping) string {
	if g.by == "" {
		return t.aggValue(g.f)
	}
	col := t.col(g.f)
	switch t.d.engine() {
	case PostgreSQL:
		return "to_char(" + col + ", '" + map[string]string{"day": "YYYY-MM-DD", "month": "YYYY-MM-01", "year": "YYYY-01-01"}[g.by] + "')"
	case MySQL:
		return "DATE_FORMAT(" + col + ", '" + map[string]string{"day": "%Y-%m-%d", "month": "%Y-%m-01", "year": "%Y-01-01"}[g.by] + "')"
	}
	return "strftime('" + map[string]string{"day": "%Y-%m-%d", "month": "%Y-%m-01", "year": "%Y-01-01"}[g.by] + "', " + col + ")"
}
