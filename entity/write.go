package entity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// writeResult turns a write's outcome into its result: the record, or a
// refusal with validationErrors.
func writeResult(rec []byte, err error) (*ferry.ToolResult, error) {
	if err != nil {
		if res, ok := refusalResult(err); ok {
			return res, nil
		}
		return nil, err
	}
	return oneResult(rec), nil
}

// create serves create_X.
func (t *table) create(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	vals, err := decodeArgs(req.Arguments)
	if err != nil {
		return nil, err
	}
	scope, err := t.forceScope(ctx, vals)
	if err != nil {
		return writeResult(nil, err)
	}
	var rec []byte
	err = t.run(ctx, false, func(ctx context.Context, tx Querier) error {
		w := t.newWrite(ctx, Create, tx, vals, nil)
		if h := t.o.Hooks.BeforeCreate; h != nil {
			if err := h(ctx, w); err != nil {
				return err
			}
		}
		if t.scope != nil {
			w.Values[t.scope.Name] = scope // a hook cannot move the record out of scope
		}
		if err := t.checkReferences(ctx, tx, w.Values); err != nil {
			return err
		}
		key, err := t.insert(ctx, tx, w.Values)
		if err != nil {
			return t.explainConflict(ctx, tx, err, w.Values, scope)
		}
		rec, err = t.reread(ctx, tx, key, scope)
		return err
	})
	return writeResult(rec, err)
}

// forceScope sets the scope's value among a create's values, refusing a
// different one.
func (t *table) forceScope(ctx context.Context, vals map[string]any) (any, error) {
	scope, err := t.scopeValue(ctx)
	if err != nil || t.scope == nil {
		return scope, err
	}
	if v, ok := vals[t.scope.Name]; ok && !t.sameValue(t.scope, v, scope) {
		return nil, &fieldError{code: ferry.RefusalForbidden, path: t.scope.Name,
			msg: t.scope.Name + ": is set for this caller and cannot be " + showValue(v)}
	}
	vals[t.scope.Name] = scope
	return scope, nil
}

func (t *table) sameValue(f *Field, a, b any) bool {
	ea, err1 := encode(t.d.engine(), f.Type, a)
	eb, err2 := encode(t.d.engine(), f.Type, b)
	return err1 == nil && err2 == nil && fmt.Sprint(ea) == fmt.Sprint(eb)
}

func (t *table) newWrite(ctx context.Context, op Op, tx Querier, vals map[string]any, old []byte) *Write {
	p, _ := ferry.PrincipalFromContext(ctx)
	w := &Write{Entity: t.e, Op: op, Tx: tx, Principal: p, Values: vals}
	if old != nil {
		dec := json.NewDecoder(bytes.NewReader(old))
		dec.UseNumber()
		_ = dec.Decode(&w.Old)
	}
	return w
}

// columns encodes the values to write, in field order.
func (t *table) columns(vals map[string]any) ([]*Field, []any, error) {
	var fs []*Field
	var args []any
	for name := range vals {
		if f := t.e.Field(name); f == nil {
			return nil, nil, fmt.Errorf("entity: %s: no field %q to write (set by a hook?)", t.e.Name, name)
		}
	}
	for _, f := range t.e.Fields {
		v, ok := vals[f.Name]
		if !ok {
			continue
		}
		if f.Generated {
			return nil, nil, invalidField(f.Name, "is computed by the database and cannot be written")
		}
		if v == nil && !f.Nullable {
			return nil, nil, invalidField(f.Name, "must not be null")
		}
		if err := checkSize(f, v); err != nil {
			return nil, nil, invalidField(f.Name, "%s", err)
		}
		var enc any
		var err error
		if f.Type == Array && v != nil {
			enc, err = encodeArray(f, v)
		} else {
			enc, err = encode(t.d.engine(), f.Type, v)
		}
		if err != nil {
			return nil, nil, invalidField(f.Name, "%s", err)
		}
		fs, args = append(fs, f), append(args, enc)
	}
	return fs, args, nil
}

// insert inserts a record and returns its key as the database holds it.
func (t *table) insert(ctx context.Context, tx Querier, vals map[string]any) (any, error) {
	fs, vs, err := t.columns(vals)
	if err != nil {
		return nil, err
	}
	q := &query{d: t.d}
	q.add("INSERT INTO ", t.into)
	if len(fs) == 0 {
		if t.d.engine() == MySQL {
			q.add(" () VALUES ()")
		} else {
			q.add(" DEFAULT VALUES")
		}
	} else {
		cols, phs := make([]string, len(fs)), make([]string, len(fs))
		for i, f := range fs {
			cols[i], phs[i] = t.d.quote(f.Column), t.param(f, q.bind(vs[i]))
		}
		q.add(" (", strings.Join(cols, ", "), ") VALUES (", strings.Join(phs, ", "), ")")
	}
	if given, ok := vals[t.key.Name]; ok && !t.key.Generated {
		if _, err := tx.ExecContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...); err != nil {
			return nil, t.writeError(err, Create, vals)
		}
		return encode(t.d.engine(), t.key.Type, given)
	}
	if t.d.returning() {
		q.add(" RETURNING ", t.valueOf(t.key, t.d.quote(t.key.Column)))
		var key any
		if err := tx.QueryRowContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...).Scan(&key); err != nil {
			return nil, t.writeError(err, Create, vals)
		}
		return key, nil
	}
	res, err := tx.ExecContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...)
	if err != nil {
		return nil, t.writeError(err, Create, vals)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return nil, t.dbError(err)
	}
	return id, nil
}

// reread reads a record back by its key, in the scope.
func (t *table) reread(ctx context.Context, tx Querier, key, scope any) ([]byte, error) {
	q, w := &query{d: t.d}, &where{}
	if err := t.scoped(q, w, scope); err != nil {
		return nil, err
	}
	w.and(t.equals(q, t.key, t.col(t.key), key))
	rec, _, found, err := t.selectOne(ctx, tx, w, q)
	switch {
	case err != nil:
		return nil, t.dbError(err)
	case !found:
		return nil, fmt.Errorf("entity: %s: the record written cannot be read back in its scope", t.e.Name)
	}
	return rec, nil
}

// find reads the record a call names, in the caller's scope, with its key.
func (t *table) find(ctx context.Context, tx Querier, f *Field, v, scope any) ([]byte, any, error) {
	enc, err := encode(t.d.engine(), f.Type, v)
	if err != nil {
		return nil, nil, invalidField(f.Name, "%s", err)
	}
	q, w := &query{d: t.d}, &where{}
	if err := t.scoped(q, w, scope); err != nil {
		return nil, nil, err
	}
	w.and(t.equals(q, f, t.col(f), enc))
	rec, key, found, err := t.selectOne(ctx, tx, w, q)
	switch {
	case err != nil:
		return nil, nil, t.dbError(err)
	case !found:
		return nil, nil, t.notFound(f, v)
	}
	return rec, key, nil
}

// update serves update_X: only the fields given change.
func (t *table) update(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	args, err := decodeArgs(req.Arguments)
	if err != nil {
		return nil, err
	}
	f, v, err := t.identity(args, Update)
	if err != nil {
		return writeResult(nil, err)
	}
	delete(args, f.Name)
	scope, err := t.scopeValue(ctx)
	if err != nil {
		return writeResult(nil, err)
	}
	if t.scope != nil {
		if sv, ok := args[t.scope.Name]; ok {
			if !t.sameValue(t.scope, sv, scope) {
				return writeResult(nil, &fieldError{code: ferry.RefusalForbidden, path: t.scope.Name,
					msg: t.scope.Name + ": cannot change: it is set for this caller"})
			}
			delete(args, t.scope.Name)
		}
	}
	if len(args) == 0 {
		return writeResult(nil, ferry.Invalid("give at least one field to change beside "+f.Name))
	}
	var rec []byte
	err = t.run(ctx, false, func(ctx context.Context, tx Querier) error {
		old, key, err := t.find(ctx, tx, f, v, scope)
		if err != nil {
			return err
		}
		w := t.newWrite(ctx, Update, tx, args, old)
		if h := t.o.Hooks.BeforeUpdate; h != nil {
			if err := h(ctx, w); err != nil {
				return err
			}
		}
		if t.scope != nil {
			delete(w.Values, t.scope.Name)
		}
		if err := t.checkReferences(ctx, tx, w.Values); err != nil {
			return err
		}
		if err := t.change(ctx, tx, w.Values, key, scope); err != nil {
			return t.explainConflict(ctx, tx, err, w.Values, scope)
		}
		rec, err = t.reread(ctx, tx, key, scope)
		return err
	})
	return writeResult(rec, err)
}

// change updates the record of key with vals.
func (t *table) change(ctx context.Context, tx Querier, vals map[string]any, key, scope any) error {
	fs, vs, err := t.columns(vals)
	if err != nil || len(fs) == 0 {
		return err
	}
	q := &query{d: t.d}
	sets := make([]string, len(fs))
	for i, f := range fs {
		sets[i] = t.d.quote(f.Column) + " = " + t.param(f, q.bind(vs[i]))
	}
	q.add("UPDATE ", t.into, " SET ", strings.Join(sets, ", "), t.keyWhere(q, key, scope))
	if _, err := tx.ExecContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...); err != nil {
		return t.writeError(err, Update, vals)
	}
	return nil
}

// keyWhere is the WHERE clause of a write by key, in the scope, on
// unqualified columns.
func (t *table) keyWhere(q *query, key, scope any) string {
	w := &where{}
	w.and(t.equals(q, t.key, t.d.quote(t.key.Column), key))
	if t.scope != nil {
		enc, _ := encode(t.d.engine(), t.scope.Type, scope)
		w.and(t.equals(q, t.scope, t.d.quote(t.scope.Column), enc))
	}
	return w.String()
}

// remove serves delete_X.
func (t *table) remove(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	args, err := decodeArgs(req.Arguments)
	if err != nil {
		return nil, err
	}
	f, v, err := t.identity(args, Delete)
	if err != nil {
		return writeResult(nil, err)
	}
	scope, err := t.scopeValue(ctx)
	if err != nil {
		return writeResult(nil, err)
	}
	var rec []byte
	err = t.run(ctx, false, func(ctx context.Context, tx Querier) error {
		old, key, err := t.find(ctx, tx, f, v, scope)
		if err != nil {
			return err
		}
		if h := t.o.Hooks.BeforeDelete; h != nil {
			if err := h(ctx, t.newWrite(ctx, Delete, tx, nil, old)); err != nil {
				return err
			}
		}
		q := &query{d: t.d}
		q.add("DELETE FROM ", t.into, t.keyWhere(q, key, scope))
		if _, err := tx.ExecContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...); err != nil {
			return t.writeError(err, Delete, nil)
		}
		rec = old
		return nil
	})
	return writeResult(rec, err)
}
