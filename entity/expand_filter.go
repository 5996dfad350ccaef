package entity

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity/internal/filter"
)

// This file lets a filter use the filterable fields of the records an
// entity's relations refer to, written relation.field
// (customer.country == "NL"). Such a field is null where the reference
// is null or its record is not there or outside the caller's scope of
// the referenced entity, and a filter that names one reads it through a
// LEFT JOIN on the reference (one record at most: a reference names a
// key), with the referenced entity's scope in the join's condition. Only
// the referenced entity's filterable fields are named (its hidden
// columns are not fields), and the caller must be allowed its get or
// list tool. The environment is built on the first filter, when the
// entities the relations refer to have been added.

// relatedFilter is the filter environment of an entity's own filterable
// fields followed by those of its relations' records.
type relatedFilter struct {
	once sync.Once
	env  *filter.Env
	cols []filterCol // parallel to the environment's fields
	rels []joined    // the relations whose fields the environment has
}

// filterCol is one field of the environment: the entity's own (j < 0)
// or one of the relation rels[j]'s record.
type filterCol struct {
	f *Field
	j int
}

// joined is a relation a filter may read through a join.
type joined struct {
	x     expansion
	alias string
}

// filterEnv returns the environment filters are checked against: with
// the related records' fields where there are any, else the entity's own.
func (t *table) filterEnv() (*filter.Env, []filterCol, []joined) {
	t.relf.once.Do(t.buildRelatedFilter)
	if t.relf.env != nil {
		return t.relf.env, t.relf.cols, t.relf.rels
	}
	cols := make([]filterCol, len(t.fidx))
	for i, f := range t.fidx {
		cols[i] = filterCol{f: f, j: -1}
	}
	return t.filter, cols, nil
}

func (t *table) buildRelatedFilter() {
	var fs []filter.Field
	var cols []filterCol
	for _, f := range t.fidx {
		fs = append(fs, filter.Field{Name: f.Name, Type: f.Type, Items: f.Items, Nullable: t.nullable(f), NonFinite: t.nonFinite(f)})
		cols = append(cols, filterCol{f: f, j: -1})
	}
	var rels []joined
	for _, r := range t.rels {
		rt := t.set.tableNamed(r.f.References.Entity)
		if rt == nil || rt.refField(r.f.References.Field) == nil || len(rt.fidx) == 0 {
			continue
		}
		j := len(rels)
		rels = append(rels, joined{x: expansion{relation: r, to: rt, key: rt.refField(r.f.References.Field)}, alias: "r" + itoa(j+1)})
		for _, f := range rt.fidx {
			fs = append(fs, filter.Field{Name: r.name + "." + f.Name, Type: f.Type, Items: f.Items, Nullable: true, NonFinite: rt.nonFinite(f)})
			cols = append(cols, filterCol{f: f, j: j})
		}
	}
	if len(rels) == 0 {
		return
	}
	env, err := filter.NewEnv(fs, nil)
	if err != nil {
		return // the entity's own environment serves
	}
	t.relf.env, t.relf.cols, t.relf.rels = env, cols, rels
}

// relatedNote tells a filter's description how to name a related
// record's fields, for an entity with relations.
func (t *table) relatedNote() string {
	if len(t.rels) == 0 {
		return ""
	}
	names := make([]string, len(t.rels))
	for i, r := range t.rels {
		names[i] = r.name
	}
	return " A related record's filterable fields are written relation.field (relations: " + strings.Join(names, ", ") + "), null when there is no such record."
}

// column is the SQL of the environment's field c.
func (t *table) column(c filterCol, rels []joined) string {
	if c.j < 0 {
		if structured(c.f.Type) {
			return t.col(c.f) // the column itself, for its indexes
		}
		return t.value(c.f)
	}
	j := rels[c.j]
	col := j.alias + "." + t.d.quote(c.f.Column)
	if structured(c.f.Type) {
		return col
	}
	return j.x.to.valueOf(c.f, col)
}

// joins writes into q, before anything else is bound, the LEFT JOINs of
// the relations whose fields expr names, each with the referenced
// entity's scope, and refuses a relation the caller may not read.
func (t *table) joins(ctx context.Context, q *query, expr string) (string, error) {
	env, cols, rels := t.filterEnv()
	if len(rels) == 0 || env == nil {
		return "", nil
	}
	used := make([]bool, len(rels))
	// A dry run names the columns; a filter it refuses is refused again,
	// with its message, by the translation proper.
	if _, err := env.Translate(expr, filter.Engine(t.d.engine()), func(i int) string {
		if cols[i].j >= 0 {
			used[cols[i].j] = true
		}
		return "c"
	}, func(any, filter.Type) string { return "?" }); err != nil {
		return "", nil //nolint:nilerr // refused by filterCond
	}
	var b strings.Builder
	for j, r := range rels {
		if !used[j] {
			continue
		}
		rt := r.x.to
		if !rt.visible(ctx) {
			return "", &fieldError{code: ferry.RefusalForbidden, path: "filter",
				msg: fmt.Sprintf("filter: this caller may not read %s (%s.*)", rt.e.Plural, r.x.name)}
		}
		scope, err := rt.scopeValue(ctx)
		if err != nil {
			return "", err
		}
		on := r.alias + "." + t.d.quote(r.x.key.Column) + " = " + t.col(r.x.f)
		if rt.scope != nil {
			enc, err := encode(t.d.engine(), rt.scope.Type, scope)
			if err != nil {
				return "", fmt.Errorf("entity: %s: the scope's value: %w", rt.e.Name, err)
			}
			on += " AND " + rt.equals(q, rt.scope, r.alias+"."+t.d.quote(rt.scope.Column), enc)
		}
		b.WriteString(" LEFT JOIN " + rt.into + " AS " + r.alias + " ON " + on)
	}
	return b.String(), nil
}
