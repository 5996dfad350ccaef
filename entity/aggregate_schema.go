package entity

import (
	"encoding/json"
	"strings"

	"github.com/ferry-mcp/ferry/entity/internal/filter"
	"github.com/ferry-mcp/ferry/schema"
)

// aggregateInput is aggregate's arguments: the aggregates and groups are
// enums of what the entity offers, so a client sees every choice.
func (t *table) aggregateInput() *schema.Schema {
	aggs := schema.ListOf(schema.Choice("count (the records), or sum, avg, min or max of a field.", t.agg.mnames...),
		"What to compute for each group, such as [\"count\", \""+t.aggExample()+"\"]. Results name each as it is written here.")
	aggs.MinItems, aggs.MaxItems, aggs.UniqueItems = ptr(1), ptr(MaxAggregates), true
	aggs.Default = json.RawMessage(`["count"]`)
	props := []schema.Prop{schema.Optional("aggregates", aggs)}
	if len(t.agg.gnames) > 0 {
		g := schema.ListOf(schema.Choice("A field, or a date's or timestamp's day, month or year (field:month).", t.agg.gnames...),
			"Fields to group the records by, at most "+itoa(MaxGroupBy)+"; without it the aggregates cover every record the filter keeps.")
		g.MaxItems, g.UniqueItems = ptr(MaxGroupBy), true
		props = append(props, schema.Optional("groupBy", g))
	}
	if t.filter != nil {
		f := described("A CEL expression the records must meet before they are grouped, as list_" + t.e.Plural + " takes it, such as " + t.filterExample() + ". Fields: " + t.typedFieldList() + ".")
		props = append(props, schema.Optional("filter", withMaxLength(f, filter.DefaultMaxLength)))
	}
	o := described("Groups and aggregates of the call to order the groups by, each optionally followed by asc or desc, separated by commas, such as \"count desc\". Groups come in their own order otherwise.")
	props = append(props, schema.Optional("orderBy", withMaxLength(o, 512)))
	skip := schema.Integer("Groups to skip.")
	skip.Minimum, skip.Default = ptr(0.0), json.RawMessage("0")
	top := schema.Integer("Most groups to return.")
	top.Minimum, top.Maximum, top.Default = ptr(1.0), ptr(float64(MaxTop)), json.RawMessage(`100`)
	props = append(props, schema.Optional("skip", skip), schema.Optional("top", top))
	return schema.Object(props...)
}

// aggregateSchema is {"data": [group], "paging": {...}}, or a refusal. A
// group has the members the call asked for, among those listed.
func (t *table) aggregateSchema() *schema.Schema {
	var props []schema.Prop
	for _, name := range t.agg.gnames {
		g := t.agg.groupings[name]
		s := t.outputValue(g.f)
		if g.by != "" {
			s = schema.Date("The first day of the " + g.by + ", in UTC.")
			s.Nullable = true
		} else {
			s.Nullable = true
		}
		props = append(props, schema.Optional(name, s))
	}
	for _, name := range t.agg.mnames {
		m := t.agg.measures[name]
		var s *schema.Schema
		switch m.fn {
		case "count":
			s = schema.Integer("The records of the group.")
		case "sum":
			s = schema.Number("The sum of " + m.f.Name + " over the group, null when every value is null.")
			s.Nullable = true
		case "avg":
			s = schema.Number("The mean of " + m.f.Name + " over the group's values that are not null, or null.")
			s.Nullable = true
		default:
			s = t.outputValue(m.f)
			s.Description = "The " + map[string]string{"min": "least", "max": "greatest"}[m.fn] + " " + m.f.Name + " of the group, or null."
			s.Nullable = true
		}
		props = append(props, schema.Optional(name, s))
	}
	group := schema.Object(props...)
	group.Description = "One group: the values it was grouped by and the aggregates asked for."
	paging := schema.Object(
		schema.Required("skip", schema.Integer("The groups skipped.")),
		schema.Required("top", schema.Integer("The most groups asked for.")),
		schema.Required("hasMore", schema.Flag("Whether groups follow this page: ask again with skip increased by the groups returned.")),
	)
	return schema.Object(append([]schema.Prop{
		schema.Optional("data", schema.ListOf(group, "The page's groups.")),
		schema.Optional("paging", paging),
	}, refusalProps()...)...)
}

// describeAggregate writes the aggregate tool's description.
func (t *table) describeAggregate(b *strings.Builder) {
	b.WriteString("Counts " + t.e.Plural + " and sums, averages or takes the least and greatest of their fields, over every record the filter keeps or per group (groupBy up to " + itoa(MaxGroupBy) + " fields; dates by day, month or year), groups paged like list_" + t.e.Plural + ".")
	var fields []string
	for _, f := range t.e.Fields {
		if f.Aggregatable {
			fields = append(fields, f.Name)
		}
	}
	b.WriteString(" Aggregated fields: " + strings.Join(fields, ", ") + ".")
}

// aggExample is an aggregate for the schema's example.
func (t *table) aggExample() string {
	for _, n := range t.agg.mnames {
		if strings.HasPrefix(n, "sum(") {
			return n
		}
	}
	return t.agg.mnames[len(t.agg.mnames)-1]
}
