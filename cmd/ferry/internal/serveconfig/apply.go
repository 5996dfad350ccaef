package serveconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/entity"
)

// HiddenColumns returns the "table.column" names of every hidden column,
// as entity.IntrospectOptions.ExcludeColumns takes them.
func (c *Config) HiddenColumns() []string {
	var out []string
	for _, name := range c.Order {
		for _, h := range c.Tables[name].Hidden {
			out = append(out, name+"."+h.Value)
		}
	}
	return out
}

// Apply applies t to e, the entity introspected from t's table with t's
// hidden columns left out. columns lists every column of the table, hidden
// ones and those of types entity does not serve included, so that a
// misspelt name is told from one that is not served. It changes e's
// description, natural key, field descriptions and the Filterable,
// Sortable, Searchable and Aggregatable flags of its fields, and returns the names of
// the fields to search (nil when the file does not say). Every name the
// file gives must be a column of the table; the error names the file's
// line.
func (t *Table) Apply(e *entity.Entity, columns []string) (search []string, err error) {
	hidden := map[string]bool{}
	for _, h := range t.Hidden {
		if !slices.Contains(columns, h.Value) {
			return nil, t.errorf(h, "table %s has no column %q to hide (its columns: %s)", t.Name.Value, h.Value, strings.Join(columns, ", "))
		}
		hidden[h.Value] = true
	}
	field := func(p Pos, what string) (*entity.Field, error) {
		for _, f := range e.Fields {
			if f.Name == p.Value || f.Column == p.Value {
				return f, nil
			}
		}
		switch {
		case hidden[p.Value]:
			return nil, t.errorf(p, "%s names %q, which is hidden", what, p.Value)
		case slices.Contains(columns, p.Value):
			return nil, t.errorf(p, "%s names %q, a column whose type is not served", what, p.Value)
		}
		return nil, t.errorf(p, "table %s has no column %q (its columns: %s)", t.Name.Value, p.Value, strings.Join(columns, ", "))
	}
	if t.Description != "" {
		e.Description = t.Description
	}
	if t.NaturalKey != nil {
		f, err := field(*t.NaturalKey, "natural_key")
		if err != nil {
			return nil, err
		}
		switch {
		case f.Name == e.Key:
			return nil, t.errorf(*t.NaturalKey, "natural_key %q is the primary key already", f.Name)
		case f.Type != entity.Text && f.Type != entity.Integer:
			return nil, t.errorf(*t.NaturalKey, "natural_key %q is %s; a natural key holds text or integers", f.Name, f.Type)
		case f.Nullable:
			return nil, t.errorf(*t.NaturalKey, "natural_key %q may be NULL; a natural key is NOT NULL and unique", f.Name)
		}
		e.NaturalKey = f.Name
	}
	for _, name := range sortedKeys(t.Fields) {
		doc := t.Fields[name]
		f, err := field(doc.Name, "fields")
		if err != nil {
			return nil, err
		}
		f.Description = doc.Description
	}
	for _, l := range []struct {
		what  string
		names []Pos
		flag  func(f *entity.Field) *bool
	}{
		{"filter", t.Filter, func(f *entity.Field) *bool { return &f.Filterable }},
		{"sort", t.Sort, func(f *entity.Field) *bool { return &f.Sortable }},
		{"search", t.Search, func(f *entity.Field) *bool { return &f.Searchable }},
	} {
		if l.names == nil {
			continue
		}
		for _, f := range e.Fields {
			*l.flag(f) = false
		}
		for _, p := range l.names {
			f, err := field(p, l.what)
			if err != nil {
				return nil, err
			}
			if l.what == "search" && f.Type != entity.Text {
				return nil, t.errorf(p, "search names %q, which is %s; only text is searched", p.Value, f.Type)
			}
			*l.flag(f) = true
			if l.what == "search" {
				search = append(search, f.Name)
			}
		}
	}
	if t.Aggregate != nil && len(t.Aggregate) == 0 {
		return nil, t.Errorf("aggregate: [] names no field; list the fields to sum, average or take the least and greatest of (integers, numbers, text, dates, timestamps), or leave the key out")
	}
	for _, p := range t.Aggregate {
		f, err := field(p, "aggregate")
		if err != nil {
			return nil, err
		}
		switch f.Type {
		case entity.Integer, entity.Number, entity.Text, entity.Date, entity.Timestamp:
		default:
			return nil, t.errorf(p, "aggregate names %q, which is %s; aggregates take integers and numbers (sum, avg, min, max), text, dates and timestamps (min, max)", p.Value, f.Type)
		}
		f.Aggregatable = true
	}
	if t.Search != nil && search == nil {
		search = []string{}
	}
	return search, nil
}

func (t *Table) errorf(p Pos, format string, args ...any) error {
	return fmt.Errorf("%s:%d:%d: %s", t.file, p.Line, p.Column, fmt.Sprintf(format, args...))
}

// Errorf returns an error located at the table's name in the file.
func (t *Table) Errorf(format string, args ...any) error { return t.errorf(t.Name, format, args...) }

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
