package entity

import (
	"encoding/json"

	"github.com/ferry-mcp/ferry/schema"
)

// inputSchema is the query's arguments: one per parameter, required
// unless it has a default or takes null.
func (qt *queryTool) inputSchema() *schema.Schema {
	props := make([]schema.Prop, 0, len(qt.params))
	for _, p := range qt.params {
		s := baseSchema(&Field{Type: p.Type})
		s.Description, s.Nullable, s.Default = p.Description, p.Nullable, p.Default
		s.Minimum, s.Maximum, s.MinLength, s.MaxLength, s.Pattern = p.Minimum, p.Maximum, p.MinLength, p.MaxLength, p.Pattern
		for _, v := range p.Enum {
			b, _ := json.Marshal(v)
			s.Enum = append(s.Enum, b)
		}
		if p.Nullable || p.Default != nil {
			props = append(props, schema.Optional(p.Name, &s))
		} else {
			props = append(props, schema.Required(p.Name, &s))
		}
	}
	return schema.Object(props...)
}

// outputSchema is the query's result: {data: [row], hasMore}, {data:
// row} or {rowsAffected}, with a refusal's members beside.
func (qt *queryTool) outputSchema() *schema.Schema {
	props := refusalProps()
	switch {
	case qt.p.class.Write:
		props = append(props, schema.Optional("rowsAffected", &schema.Schema{Type: "integer", Description: "How many rows the statement changed."}))
	case qt.q.Mode == One:
		props = append(props, schema.Optional("data", qt.rowSchema()))
	default:
		props = append(props,
			schema.Optional("data", schema.ListOf(qt.rowSchema(), "The rows, in the statement's order.")),
			schema.Optional("hasMore", &schema.Schema{Type: "boolean", Description: "True when rows were left out: the query's row cap or the result's size stopped it."}))
	}
	return schema.Object(props...)
}

// rowSchema is one result row: every column, each nullable (the engine
// does not say which may be null).
func (qt *queryTool) rowSchema() *schema.Schema {
	props := make([]schema.Prop, len(qt.cols))
	for i, c := range qt.cols {
		var s schema.Schema
		if c.typ != 0 {
			s = baseSchema(&Field{Type: c.typ})
			s.Format = "" // what the database holds need not be in the format
		}
		s.Nullable = c.typ != 0
		props[i] = schema.Required(c.name, &s)
	}
	return schema.Object(props...)
}
