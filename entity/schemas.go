package entity

import (
	"encoding/json"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/filter"
	"github.com/ferry-mcp/ferry/schema"
)

// valueSchema is the JSON Schema of f's values, nullable as f is; writes
// are checked against it.
func valueSchema(f *Field) *schema.Schema {
	var s schema.Schema
	if f.Schema != nil {
		s = *f.Schema
	} else {
		s = baseSchema(f)
	}
	if s.Description == "" {
		s.Description = f.Description
	}
	s.Nullable = f.Nullable
	sized(&s, f)
	return &s
}

func baseSchema(f *Field) schema.Schema {
	var s schema.Schema
	switch f.Type {
	case Integer:
		s.Type = "integer"
	case Number:
		s.Type = "number"
	case Boolean:
		s.Type = "boolean"
	case Timestamp:
		s.Type, s.Format = "string", "date-time"
	case Date:
		s.Type, s.Format = "string", "date"
	case UUID:
		s.Type, s.Format = "string", "uuid"
	case JSON:
		// Any JSON value: no type keyword.
	case Array:
		item := baseSchema(&Field{Type: f.Items})
		item.Nullable = true
		s.Type, s.Items = "array", &item
	default:
		s.Type = "string"
		for _, v := range f.Enum {
			b, _ := json.Marshal(v)
			s.Enum = append(s.Enum, b)
		}
	}
	return s
}

// outputValue is f's schema in results: its type and description only,
// since what the database holds need not meet today's write checks, and
// nullable as its served value is.
func (t *table) outputValue(f *Field) *schema.Schema {
	b := baseSchema(f)
	b.Enum = nil
	b.Description = f.Description
	b.Nullable = t.nullable(f)
	if f.Type == JSON && b.Description == "" {
		b.Description = "Any JSON value."
	}
	return &b
}

// recordSchema is the schema of one record as the tools serve it.
func (t *table) recordSchema() *schema.Schema {
	props := make([]schema.Prop, len(t.e.Fields))
	for i, f := range t.e.Fields {
		props[i] = schema.Required(f.Name, t.outputValue(f))
	}
	s := schema.Object(props...)
	s.Description = "One " + t.e.Name + "."
	return s
}

// oneSchema is {"data": record}; a refusal's members are allowed beside
// it (see refusalProps).
func (t *table) oneSchema() *schema.Schema {
	return schema.Object(append([]schema.Prop{
		schema.Optional("data", t.recordSchema()),
	}, refusalProps()...)...)
}

// listSchema is {"data": [record], "paging": {...}}, or a refusal.
func (t *table) listSchema() *schema.Schema {
	paging := []schema.Prop{
		schema.Required("skip", schema.Integer("The records skipped.")),
		schema.Required("top", schema.Integer("The most records asked for.")),
		schema.Required("hasMore", schema.Flag("Whether records follow this page: ask again with skip increased by the records returned.")),
	}
	if !t.o.SkipTotalCount {
		paging = append([]schema.Prop{schema.Required("totalCount", schema.Integer("The records that match, on every page."))}, paging...)
	}
	return schema.Object(append([]schema.Prop{
		schema.Optional("data", schema.ListOf(t.recordSchema(), "The page's records.")),
		schema.Optional("paging", schema.Object(paging...)),
	}, refusalProps()...)...)
}

// refusalProps are the members of a refusal's structured content. They
// are part of every output schema, with data and paging optional, because
// clients (the TypeScript SDK among them) check an error result's
// structured content against the output schema too: a success has data
// (and paging), a refusal error, code and validationErrors instead.
func refusalProps() []schema.Prop {
	verr := schema.Object(
		schema.Required("path", schema.Text("The argument at fault, or empty for the call as a whole.")),
		schema.Required("message", schema.Text("What is wrong with it.")),
	)
	return []schema.Prop{
		schema.Optional("error", schema.Text("On a refusal: the sentence, starting with its code.")),
		schema.Optional("code", schema.Text("On a refusal: not-found, conflict, forbidden, invalid or unavailable.")),
		schema.Optional("validationErrors", schema.ListOf(verr, "On a refusal: the arguments at fault.")),
	}
}

// identify returns the key and natural-key properties of get, update and
// delete, and the sentence saying how to use them.
func (t *table) identify() ([]schema.Prop, string) {
	var props []schema.Prop
	var names []string
	for _, f := range []*Field{t.key, t.natural} {
		if f == nil {
			continue
		}
		s := valueSchema(f)
		s.Nullable, s.Default = false, nil
		if s.Description == "" {
			s.Description = "The " + t.e.Name + "'s " + f.Name + "."
		}
		props = append(props, schema.Optional(f.Name, s))
		names = append(names, f.Name)
	}
	return props, "Name the " + t.e.Name + " by " + strings.Join(names, " or ") + "."
}

// getInput is get's arguments: the key or the natural key.
func (t *table) getInput() *schema.Schema {
	props, _ := t.identify()
	return schema.Object(props...)
}

// listInput is list's arguments.
func (t *table) listInput() *schema.Schema {
	var props []schema.Prop
	if t.filter != nil {
		f := described("A CEL expression the records must meet, such as " + t.filterExample() +
			": comparisons (== != < <= > >=) with a value or another field (stock < reorder_level), && || !, in [..], contains/startsWith/endsWith, == null, timestamp(\"2026-01-02T00:00:00Z\")." + t.structuredNote() + " Fields: " + t.typedFieldList() + "." + t.relatedNote())
		props = append(props, schema.Optional("filter", withMaxLength(f, filter.DefaultMaxLength)))
	}
	if t.o.Searcher != nil {
		s := described("Words to search for in " + t.fieldList(func(f *Field) bool { return f.Searchable }) + "; results come best match first unless orderBy is given.")
		props = append(props, schema.Optional("search", withMaxLength(s, MaxSearchText)))
	}
	sortable := t.fieldList(func(f *Field) bool { return f.Sortable })
	if sortable != "" {
		o := described("Fields to order by, each optionally followed by asc or desc, separated by commas, such as \"" + t.orderExample() + "\". Sortable: " + sortable + ".")
		props = append(props, schema.Optional("orderBy", withMaxLength(o, 512)))
	}
	skip := schema.Integer("Records to skip.")
	skip.Minimum, skip.Default = ptr(0.0), json.RawMessage("0")
	top := schema.Integer("Most records to return.")
	top.Minimum, top.Maximum, top.Default = ptr(1.0), ptr(float64(MaxTop)), json.RawMessage(`100`)
	props = append(props, schema.Optional("skip", skip), schema.Optional("top", top))
	return schema.Object(props...)
}

// createInput is create's arguments: every written field, required when
// the database cannot fill it.
func (t *table) createInput() *schema.Schema {
	var props []schema.Prop
	for _, f := range t.e.Fields {
		if f.Generated {
			continue
		}
		s := valueSchema(f)
		if s.Description == "" {
			s.Description = t.writtenDescription(f, false, f.HasDefault || s.Default != nil)
		}
		if f.Nullable || f.HasDefault || f == t.scope || s.Default != nil {
			props = append(props, schema.Optional(f.Name, s))
		} else {
			props = append(props, schema.Required(f.Name, s))
		}
	}
	return schema.Object(props...)
}

// updateInput is update's arguments: the key or natural key, and the
// fields to change, none with a default (what is not given stays).
func (t *table) updateInput() *schema.Schema {
	props, _ := t.identify()
	for _, f := range t.e.Fields {
		if f.Generated || f == t.key || f == t.natural {
			continue
		}
		s := valueSchema(f)
		s.Default = nil
		if s.Description == "" {
			s.Description = t.writtenDescription(f, true, false)
		}
		props = append(props, schema.Optional(f.Name, s))
	}
	return schema.Object(props...)
}

// writtenDescription describes f's property in create's arguments, or
// update's, for a field without a description of its own (a table served
// with no config): whose value it is, and what null and leaving it out
// do, so that every property a model writes is described. hasDefault says
// that create fills the value when it is left out.
func (t *table) writtenDescription(f *Field, update, hasDefault bool) string {
	whose := "The " + t.e.Name + "'s " + f.Name
	switch {
	case update && f.Nullable:
		return whose + ", or null to clear it; left out, it stays as it is."
	case update:
		return whose + "; left out, it stays as it is."
	case hasDefault:
		d := whose + "; left out, the database's default."
		if f.Nullable {
			d = whose + ", or null; left out, the database's default."
		}
		return d
	case f.Nullable:
		return whose + ", or null; left out, null."
	}
	return whose + "."
}

func (t *table) fieldList(keep func(*Field) bool) string {
	var b strings.Builder
	for _, f := range t.e.Fields {
		if keep(f) {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name)
		}
	}
	return b.String()
}

// typedFieldList lists the filterable fields with their types, as
// "cost (number), stock (integer or null)".
func (t *table) typedFieldList() string {
	var b strings.Builder
	for _, f := range t.fidx {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + " (" + typeName(f))
		if t.nullable(f) && f.Type != JSON {
			b.WriteString(" or null")
		}
		b.WriteString(")")
	}
	return b.String()
}

func (t *table) filterExample() string {
	for _, f := range t.fidx {
		switch f.Type {
		case Integer, Number:
			return f.Name + " > 10"
		case Text:
			return f.Name + `.contains("abc")`
		}
	}
	return t.fidx[0].Name + " == null"
}

func (t *table) orderExample() string {
	for _, f := range t.e.Fields {
		if f.Sortable {
			return f.Name + " desc"
		}
	}
	return ""
}

// described is a text schema whose description, listing fields, is cut
// short of the 1024 characters clients accept.
func described(desc string) *schema.Schema {
	return schema.Text(clip(desc, 1000))
}

func withMaxLength(s *schema.Schema, n int) *schema.Schema {
	s.MaxLength = &n
	return s
}

func ptr[T any](v T) *T { return &v }
