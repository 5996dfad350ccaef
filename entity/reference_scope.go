package entity

import (
	"context"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// checkReferences refuses a write whose reference field names a record
// outside the caller's scope of the referenced entity, with the refusal
// a record that exists nowhere gets. The foreign key alone would accept
// it: tenant b's member could join tenant a's team, and b would learn
// which of a's ids exist.
func (t *table) checkReferences(ctx context.Context, tx Querier, vals map[string]any) error {
	for _, f := range t.e.Fields {
		v, ok := vals[f.Name]
		if !ok || v == nil || f.References == nil {
			continue
		}
		target := t.set.tableNamed(f.References.Entity)
		if target == nil || target.scope == nil {
			continue
		}
		found, err := target.inScope(ctx, tx, f.References.Field, v)
		if err != nil {
			return err
		}
		if !found {
			return &fieldError{code: ferry.RefusalInvalid, path: f.Name,
				msg: fmt.Sprintf("%s: %s refers to no %s", f.Name, showValue(v), f.References.Entity)}
		}
	}
	return nil
}

// inScope reports whether a record whose field named name (the key if
// name is empty) holds v is in the caller's scope.
func (t *table) inScope(ctx context.Context, tx Querier, name string, v any) (bool, error) {
	rf := t.key
	if name != "" {
		rf = t.e.Field(name)
	}
	if rf == nil {
		return false, fmt.Errorf("entity: %s: no field %q for a reference", t.e.Name, name)
	}
	scope, err := t.scopeValue(ctx)
	if err != nil {
		return false, err
	}
	enc, err := encode(t.d.engine(), rf.Type, v)
	if err != nil {
		return false, nil //nolint:nilerr // a value the field cannot hold names no record
	}
	q, w := &query{d: t.d}, &where{}
	if err := t.scoped(q, w, scope); err != nil {
		return false, err
	}
	w.and(t.equals(q, rf, t.col(rf), enc))
	_, _, found, err := t.selectOne(ctx, tx, w, q)
	if err != nil {
		return false, t.dbError(err)
	}
	return found, nil
}

// tableNamed is the set's entity named name, or nil.
func (s *Set) tableNamed(name string) *table {
	for _, t := range s.snapshot() {
		if t.e.Name == name {
			return t
		}
	}
	return nil
}
