package entity

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
)

// This file serves the expand argument of get and list: a reference field
// (a foreign key the introspection found, or a Go field's ref tag) names
// a relation, and expand nests the record it refers to in each record,
// one level: {"category_id": 3, "category": {"id": 3, "name": "Tea"}}. A
// list reads the records of one relation with one query for the whole
// page (the keys the page refers to, bound), never one per record. The
// referenced entity's own fields (its hidden columns left out), scope and
// read hook apply, and the caller must be allowed its list or get tool; a
// record the caller cannot see, or that is not there, is null, as is a
// null reference.

// relation is a reference field as expand names it.
type relation struct {
	name string // "category" for category_id
	f    *Field // the reference field
	i    int    // its index in the entity's fields
}

// initRelations names the entity's relations: a reference field's name
// without its _id suffix, or with _ref added when that is a field's name
// too.
func (t *table) initRelations() {
	for i, f := range t.e.Fields {
		if f.References == nil {
			continue
		}
		name, ok := strings.CutSuffix(f.Name, "_id")
		if !ok || name == "" || t.e.Field(name) != nil {
			name = f.Name + "_ref"
		}
		if t.e.Field(name) != nil || slices.ContainsFunc(t.rels, func(r relation) bool { return r.name == name }) {
			continue
		}
		t.rels = append(t.rels, relation{name: name, f: f, i: i})
	}
}

// withExpand adds the expand argument to get's or list's arguments, for
// an entity with relations.
func (t *table) withExpand(s *schema.Schema) *schema.Schema {
	if len(t.rels) == 0 {
		return s
	}
	names := make([]string, len(t.rels))
	var desc []string
	for i, r := range t.rels {
		names[i] = r.name
		desc = append(desc, r.name+" (the "+r.f.References.Entity+" "+r.f.Name+" refers to)")
	}
	e := schema.ListOf(schema.Choice("A relation.", names...),
		"Relations to nest in each record, one level: "+strings.Join(desc, ", ")+". A reference to nothing, or to a record the caller cannot see, is null.")
	e.MaxItems, e.UniqueItems = ptr(len(names)), true
	c := *s
	c.Properties = make(map[string]*schema.Schema, len(s.Properties)+1)
	for k, v := range s.Properties {
		c.Properties[k] = v
	}
	c.PropertyOrder = append(slices.Clone(s.PropertyOrder), "expand")
	c.Properties["expand"] = e
	return &c
}

// expansion is a relation a call expands, with the entity it refers to.
type expansion struct {
	relation
	to  *table
	key *Field // the referenced field
}

// expansions checks the relations a call names: known, given once,
// served, and readable by the caller.
func (t *table) expansions(ctx context.Context, names []string) ([]expansion, error) {
	var out []expansion
	for i, name := range names {
		path := "expand[" + itoa(i) + "]"
		k := slices.IndexFunc(t.rels, func(r relation) bool { return r.name == name })
		switch {
		case k < 0:
			var known []string
			for _, r := range t.rels {
				known = append(known, r.name)
			}
			if len(known) == 0 {
				return nil, invalidField(path, "%s have no relations to expand", t.e.Plural)
			}
			return nil, invalidField(path, "%q is not a relation of %s; choose from %s", clip(name, 40), t.e.Plural, strings.Join(known, ", "))
		case slices.ContainsFunc(out, func(x expansion) bool { return x.name == name }):
			return nil, invalidField(path, "%s is given twice", name)
		}
		r := t.rels[k]
		to := t.set.tableNamed(r.f.References.Entity)
		var key *Field
		if to != nil {
			key = to.refField(r.f.References.Field)
		}
		if to == nil || key == nil {
			return nil, invalidField(path, "%s: the %s records %s refers to are not served", name, r.f.References.Entity, r.f.Name)
		}
		if !to.visible(ctx) {
			return nil, &fieldError{code: ferry.RefusalForbidden, path: path,
				msg: fmt.Sprintf("%s: this caller may not read %s", path, to.e.Plural)}
		}
		out = append(out, expansion{relation: r, to: to, key: key})
	}
	return out, nil
}

// visible says whether the caller of ctx may call the entity's list or
// get tool.
func (t *table) visible(ctx context.Context) bool {
	cat := t.set.srv.Catalog()
	for _, op := range []Op{List, Get} {
		if !t.has(op) {
			continue
		}
		if info, ok := cat.Lookup(t.toolName(op)); ok && t.set.srv.Allows(ctx, info) {
			return true
		}
	}
	return false
}

// related reads the records of x's entity whose referenced field holds
// one of keys (each the JSON of a value, as records show it), within the
// caller's scope of it, in one query, and returns their JSON by key.
func (t *table) related(ctx context.Context, tx Querier, x expansion, keys []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if len(keys) == 0 {
		return out, nil
	}
	rt := x.to
	scope, err := rt.scopeValue(ctx)
	if err != nil {
		return nil, err
	}
	if err := rt.beforeRead(ctx, tx, List); err != nil {
		return nil, err
	}
	q, w := &query{d: rt.d}, &where{}
	if err := rt.scoped(q, w, scope); err != nil {
		return nil, err
	}
	var in strings.Builder
	for _, k := range keys {
		dec := json.NewDecoder(strings.NewReader(k))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			continue
		}
		enc, err := encode(rt.d.engine(), x.key.Type, v)
		if err != nil {
			continue // a value the referenced field cannot hold names no record
		}
		if in.Len() > 0 {
			in.WriteString(", ")
		}
		in.WriteString(q.bind(enc))
	}
	if in.Len() == 0 {
		return out, nil
	}
	w.and(rt.value(x.key) + " IN (" + in.String() + ")")
	q.add("SELECT ", rt.cols, " FROM ", rt.from, w.String())
	rows, err := tx.QueryContext(ctx, rt.d.statement(q.sql.String(), rt.set.timeout), q.args...)
	if err != nil {
		return nil, rt.dbError(err)
	}
	defer rows.Close()
	ki := slices.Index(rt.e.Fields, x.key)
	vals, ptrs := scanTargets(len(rt.e.Fields))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, rt.dbError(err)
		}
		out[string(appendValue(nil, x.key.Type, vals[ki]))] = rt.appendRecord(nil, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, rt.dbError(err)
	}
	return out, rows.Close()
}

// scanExpanded reads a page's rows (at most limit, and whether more
// remain), then the records they refer to, one query per expansion, and
// appends the records to b with those nested, keeping b within maxBytes
// (0 for no bound) though always one record.
func (t *table) scanExpanded(ctx context.Context, tx Querier, rows *sql.Rows, b []byte, limit, maxBytes int, xs []expansion) ([]byte, int, bool, error) {
	var recs [][]any
	more := false
	for rows.Next() {
		if len(recs) == limit {
			more = true
			break
		}
		vals, ptrs := scanTargets(len(t.e.Fields))
		if err := rows.Scan(ptrs...); err != nil {
			return b, 0, false, err
		}
		recs = append(recs, vals)
	}
	if err := rows.Err(); err != nil {
		return b, 0, false, err
	}
	if err := rows.Close(); err != nil {
		return b, 0, false, err
	}
	nested := make([]map[string][]byte, len(xs))
	for i, x := range xs {
		var keys []string
		for _, vals := range recs {
			if v := vals[x.i]; v != nil {
				keys = append(keys, string(appendValue(nil, x.f.Type, v)))
			}
		}
		slices.Sort(keys)
		var err error
		if nested[i], err = t.related(ctx, tx, x, slices.Compact(keys)); err != nil {
			return b, 0, false, err
		}
	}
	for n, vals := range recs {
		before := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		rec := t.appendRecord(nil, vals)
		b = appendNested(b, rec, xs, nested, func(x expansion) []byte {
			if vals[x.i] == nil {
				return nil
			}
			return appendValue(nil, x.f.Type, vals[x.i])
		})
		if maxBytes > 0 && n > 0 && len(b) > maxBytes {
			return b[:before], n, true, nil
		}
	}
	return b, len(recs), more, nil
}

// appendNested appends rec, a record's JSON object, with each
// expansion's record (or null) as a member before its closing brace; key
// gives the JSON of the reference's value, nil for null.
func appendNested(b, rec []byte, xs []expansion, nested []map[string][]byte, key func(x expansion) []byte) []byte {
	b = append(b, rec[:len(rec)-1]...)
	for i, x := range xs {
		b = append(b, ',')
		b = appendString(b, x.name)
		b = append(b, ':')
		if k := key(x); k != nil {
			if r, ok := nested[i][string(k)]; ok {
				b = append(b, r...)
				continue
			}
		}
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// expandOne nests the expansions' records in rec, one record's JSON.
func (t *table) expandOne(ctx context.Context, tx Querier, rec []byte, xs []expansion) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(rec, &members); err != nil {
		return nil, err
	}
	nested := make([]map[string][]byte, len(xs))
	keyOf := func(x expansion) []byte {
		k := members[x.f.Name]
		if len(k) == 0 || bytes.Equal(k, []byte("null")) {
			return nil
		}
		return k
	}
	for i, x := range xs {
		var keys []string
		if k := keyOf(x); k != nil {
			keys = []string{string(k)}
		}
		var err error
		if nested[i], err = t.related(ctx, tx, x, keys); err != nil {
			return nil, err
		}
	}
	return appendNested(nil, rec, xs, nested, keyOf), nil
}

// expandArgument reads get's expand argument from its decoded arguments.
func expandArgument(args map[string]any) ([]string, error) {
	raw, ok := args["expand"]
	if !ok {
		return nil, nil
	}
	delete(args, "expand")
	list, ok := raw.([]any)
	if !ok {
		return nil, invalidField("expand", "must be a list of relation names")
	}
	names := make([]string, len(list))
	for i, v := range list {
		s, ok := v.(string)
		if !ok {
			return nil, invalidField("expand["+itoa(i)+"]", "must be a relation's name")
		}
		names[i] = s
	}
	return names, nil
}

// refField is the field a reference names: its Field, or the key when
// it names none (a Go type's ref:"category").
func (t *table) refField(name string) *Field {
	if name == "" {
		return t.key
	}
	return t.e.Field(name)
}
