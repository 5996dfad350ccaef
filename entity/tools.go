package entity

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
)

// register adds the entity's tools to the server.
func (t *table) register() {
	srv := t.set.srv
	for _, op := range allOps() {
		if !t.has(op) {
			continue
		}
		tool := ferry.Tool{Name: t.toolName(op), Title: t.title(op), Description: t.describe(op), ClosedWorld: true,
			Timeout: t.toolTimeout(), TaskSupport: t.o.TaskSupport, Groups: t.toolGroups()}
		who := t.o.Access.callers(op)
		tool.Scopes, tool.Roles = who.Scopes, who.Roles
		var h ferry.ToolHandler
		switch op {
		case Get:
			tool.ReadOnly, tool.InputSchema, tool.OutputSchema, h = true, t.withExpand(t.getInput()), t.oneSchema(), t.get
		case List:
			tool.ReadOnly, tool.InputSchema, tool.OutputSchema, h = true, t.withExpand(t.listInput()), t.listSchema(), t.list
		case Create:
			tool.Additive, tool.InputSchema, tool.OutputSchema, h = true, t.createInput(), t.oneSchema(), t.create
		case Update:
			tool.Additive, tool.Idempotent, tool.InputSchema, tool.OutputSchema, h = true, true, t.updateInput(), t.oneSchema(), t.update
			tool.Confirm = ferry.ConfirmWrites // additive by the hints, but it overwrites values
			tool.Summarize = summary("Overwrites the fields given of one " + t.e.Name + "; their values now are lost.")
		case Delete:
			tool.InputSchema, tool.OutputSchema, h = t.getInput(), t.oneSchema(), t.remove // destructive: the zero hints
			tool.Summarize = summary("Deletes one " + t.e.Name + " for good.")
		case Aggregate:
			tool.ReadOnly, tool.InputSchema, tool.OutputSchema, h = true, t.aggregateInput(), t.aggregateSchema(), t.aggregate
		}
		if t.o.Confirm != ferry.ConfirmDestructive && !tool.ReadOnly {
			tool.Confirm = t.o.Confirm
		}
		srv.AddTool(tool, refusing(h))
	}
}

// toolGroups are the groups of the entity's tools: [Options.Groups],
// else [SetOptions.Groups], else the entity's plural name.
func (t *table) toolGroups() []string {
	switch {
	case t.o.Groups != nil:
		return slices.Clone(t.o.Groups)
	case t.set.groups != nil:
		return t.set.groupsOf()
	case ferry.ValidGroupName(t.e.Plural) == nil:
		return []string{t.e.Plural}
	}
	return []string{} // none: not the group of this package, which would be every entity's
}

// toolTimeout is the deadline of the entity's tools: a little beyond its
// own timeout ([Options.Timeout]), past the context [table.run] gives a
// call; zero, the server's, when the entity has none of its own.
func (t *table) toolTimeout() time.Duration {
	if t.o.Timeout <= 0 {
		return 0
	}
	return t.timeout + t.timeout/5 + time.Second
}

// summary is a summarizer of a tool's calls (see [ferry.Tool.Summarize])
// that says what every call changes.
func summary(text string) func(context.Context, *ferry.CallToolRequest) (string, error) {
	return func(context.Context, *ferry.CallToolRequest) (string, error) { return text, nil }
}

// refusing turns a handler's refusals into results carrying their code
// and validationErrors in structured content as well as the text.
func refusing(h ferry.ToolHandler) ferry.ToolHandler {
	return func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		res, err := h(ctx, req)
		if err != nil {
			if r, ok := refusalResult(err); ok {
				return r, nil
			}
		}
		return res, err
	}
}

// title is a tool's display title: "List products", "Get order line".
func (t *table) title(op Op) string {
	verb, noun := op.String(), t.e.Name
	if op == List || op == Aggregate {
		noun = t.e.Plural
	}
	return strings.ToUpper(verb[:1]) + verb[1:] + " " + strings.ReplaceAll(noun, "_", " ")
}

// describe writes a tool's description.
func (t *table) describe(op Op) string {
	var b strings.Builder
	_, how := t.identify()
	switch op {
	case Get:
		b.WriteString("Gets one " + t.e.Name + ". " + how)
	case List:
		b.WriteString("Lists " + t.e.Plural + ", " + itoa(DefaultTop) + " at a time (top up to " + itoa(MaxTop) + "; skip to page on), with paging.totalCount and paging.hasMore.")
		if t.filter != nil {
			b.WriteString(" filter takes a CEL expression over " + t.fieldList(func(f *Field) bool { return f.Filterable }))
			if len(t.unnameable) > 0 {
				b.WriteString("; " + andList(t.unnameable, 5) + " cannot be filtered, as CEL cannot name " +
					map[bool]string{true: "it", false: "them"}[len(t.unnameable) == 1])
			}
			b.WriteString(".")
		}
		if t.o.Searcher != nil {
			b.WriteString(" search finds words in " + t.fieldList(func(f *Field) bool { return f.Searchable }) + ".")
		}
	case Create:
		b.WriteString("Creates " + article(t.e.Name) + " and returns it as stored.")
	case Update:
		b.WriteString("Changes the fields given of one " + t.e.Name + "; the others stay. " + how)
		if t.natural != nil && t.key != nil {
			b.WriteString(" Named by " + t.key.Name + ", it may also change " + t.natural.Name + ".")
		}
	case Delete:
		b.WriteString("Deletes one " + t.e.Name + " and returns it as it was. " + how)
	case Aggregate:
		t.describeAggregate(&b)
	}
	if op == Get || op == List || op == Aggregate {
		switch {
		case t.e.View:
			b.WriteString(" (A view: read-only.)")
		case t.key == nil:
			b.WriteString(" (" + t.noKey() + ".)")
		}
	}
	if t.e.Description != "" {
		b.WriteString(" " + clip(t.e.Description, 600))
	}
	return clip(b.String(), 1000)
}

// noKey says that an entity with no Key is read-only, and why, as
// "read-only, with no get tool: its primary key has 2 columns (order_id,
// line), and get, update and delete name a record by a single-column
// key".
func (t *table) noKey() string {
	why := t.e.KeyNote
	if why == "" {
		why = "it has no single-column key"
	}
	if t.has(Get) {
		return "read-only: " + why + ", and update and delete name a record by a single-column key"
	}
	return "read-only, with no get tool: " + why + ", and get, update and delete name a record by a single-column key"
}

// andList joins names as "a, b and c", the first limit of them, saying
// how many more.
func andList(names []string, limit int) string {
	if len(names) > limit {
		return strings.Join(names[:limit], ", ") + " and " + itoa(len(names)-limit) + " more"
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// entitySchema is what the entity resources say of one entity.
type entitySchema struct {
	Name        string         `json:"name"`
	Plural      string         `json:"plural"`
	Description string         `json:"description,omitempty"`
	Key         string         `json:"key,omitempty"`
	NaturalKey  string         `json:"naturalKey,omitempty"`
	ReadOnly    bool           `json:"readOnly,omitempty"`
	Tools       []string       `json:"tools"`
	Filterable  []string       `json:"filterable"`
	Sortable    []string       `json:"sortable"`
	Searchable  []string       `json:"searchable,omitempty"`
	Schema      *schema.Schema `json:"schema"`
}

// describeEntity describes the entity with the tools of ops only: it is
// read-only unless one of them writes, and its list tool's fields are
// named only with it.
func (t *table) describeEntity(ops []Op) entitySchema {
	es := entitySchema{Name: t.e.Name, Plural: t.e.Plural, Description: t.e.Description,
		Key: t.e.Key, NaturalKey: t.e.NaturalKey, ReadOnly: true, Schema: t.recordSchema(),
		Filterable: []string{}, Sortable: []string{}}
	for _, op := range ops {
		es.Tools = append(es.Tools, t.toolName(op))
		es.ReadOnly = es.ReadOnly && (op == Get || op == List || op == Aggregate)
	}
	if !slices.Contains(ops, List) {
		return es
	}
	for _, f := range t.e.Fields {
		if f.Filterable {
			es.Filterable = append(es.Filterable, f.Name)
		}
		if f.Sortable {
			es.Sortable = append(es.Sortable, f.Name)
		}
		if f.Searchable && t.o.Searcher != nil {
			es.Searchable = append(es.Searchable, f.Name)
		}
	}
	return es
}
