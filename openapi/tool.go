package openapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
	"github.com/ferry-mcp/ferry/toolname"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// maxTitle is the longest summary that is also a tool's title.
const maxTitle = 80

// MaxPortableName is the longest tool name some clients accept (the
// protocol allows 128 characters): a longer derived name is noted.
const MaxPortableName = 64

// Options says which operations of a document become tools, and how.
// The zero value selects every operation of a document of at most
// [MaxUnselected] operations, named after their operation ids.
type Options struct {
	// Select chooses the operations (see [Document.Select]): operation
	// ids, tags, and "METHOD /path" patterns; an entry starting with "!"
	// leaves out what it matches. If empty, every operation is chosen,
	// when the document has at most [MaxUnselected].
	Select []string
	// Tools adjusts the tools of single operations, by operation id (or
	// "METHOD /path" for an operation without one).
	Tools map[string]ToolOptions
	// NamePrefix is put before every derived tool name ("github_"). A
	// name given in Tools is used as it is.
	NamePrefix string
	// ClosedWorld marks every tool as reaching only this service
	// ([ferry.Tool.ClosedWorld]): true for a service's own API served in
	// process, false (the default) for a remote API.
	ClosedWorld bool
	// MaxRecursion is how many levels of a schema that holds itself are
	// kept before it is cut. If zero, [DefaultMaxRecursion].
	MaxRecursion int
	// NoOutputSchemas leaves the output schemas out: the 2xx answers are
	// still the results' structured content, but clients do not check
	// them against the document, which may be less exact than the API.
	NoOutputSchemas bool
}

// ToolOptions adjusts the tool of one operation. Each hint adds to those
// the method gives (GET and HEAD read-only, PUT and DELETE idempotent):
// as for [ferry.Tool], a hint's zero value is the protocol's cautious
// default.
type ToolOptions struct {
	// Name replaces the derived name.
	Name string
	// Title is the tool's display title.
	Title string
	// Description replaces the summary and description.
	Description string
	// ReadOnly, Additive, Idempotent and ClosedWorld are the hints of
	// [ferry.Tool].
	ReadOnly, Additive, Idempotent, ClosedWorld bool
	// Groups are the tool's groups ([ferry.Tool.Groups]). If nil, the
	// group of the operation's first tag ([TagGroup]); when it has none,
	// the binding's ([route.Options.Groups]), else its route's
	// ([route.RouteGroup]). Empty, non-nil: no group.
	Groups []string
}

// Tool is one selected operation as a tool: what [Bind] registers, and
// what ferry lint -openapi reports.
type Tool struct {
	// Tool is the tool: its name, description, schemas and hints (those
	// the method gives are added by the binding).
	Tool ferry.Tool
	// Operation is the operation it calls.
	Operation *Operation
	// Route is the route it is bound to, "METHOD /path" with each
	// wildcard named after its argument.
	Route string
	// In says where each argument goes that is not in the path or the
	// default place (see [route.Binding.AddPlaced]).
	In map[string]string
	// Notes say what the conversion changed or left out: renamed
	// arguments, cut recursion, keywords the schema does not check, a
	// cut description.
	Notes []string
	// Checked says the server checks the arguments against the input
	// schema; when false (the schema holds anyOf or oneOf, which the
	// server's validator does not read), it is sent as it is and the
	// service checks the arguments.
	Checked bool
	// Err says why the operation cannot be served, or is nil.
	Err error
	// tagGroup says Tool.Groups is the operation's first tag's, which the
	// binding's groups ([route.Options.Groups]) replace.
	tagGroup bool
}

// Tools converts the operations opts selects into tools, in document
// order. It fails when the selection does (see [Document.Select]); an
// operation that cannot be served is a Tool whose Err says why.
func (d *Document) Tools(opts *Options) ([]*Tool, error) {
	return d.tools(opts, nil)
}

// tools is Tools, leaving out the header parameters named in own (a
// gateway's, which it sets itself).
func (d *Document) tools(opts *Options, own []string) ([]*Tool, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	ops, err := d.Select(o.Select)
	if err != nil {
		return nil, err
	}
	if o.MaxRecursion <= 0 {
		o.MaxRecursion = DefaultMaxRecursion
	}
	tools := make([]*Tool, 0, len(ops))
	names := map[string]*Tool{}
	for _, op := range ops {
		t := d.tool(op, &o, own)
		if prev := names[t.Tool.Name]; prev != nil && t.Err == nil {
			t.Err = fmt.Errorf("its tool name %q is %s's too: give one of them another in Options.Tools", t.Tool.Name, prev.Operation)
		}
		names[t.Tool.Name] = t
		tools = append(tools, t)
	}
	return tools, nil
}

// tool converts one operation.
func (d *Document) tool(op *Operation, o *Options, own []string) *Tool {
	to := o.Tools[op.key()]
	c := &converter{maxRecursion: o.MaxRecursion, ownHeaders: own}
	in := c.buildInput(op)
	t := &Tool{Operation: op, Route: in.pattern, In: in.in}
	title := to.Title
	if s := strings.TrimSpace(op.Summary); title == "" && s != "" && len(s) <= maxTitle && !strings.Contains(s, "\n") {
		title = strings.TrimSuffix(s, ".")
	}
	t.Tool = ferry.Tool{Name: to.Name, Title: title, Description: to.Description,
		ReadOnly: to.ReadOnly, Additive: to.Additive, Idempotent: to.Idempotent, ClosedWorld: to.ClosedWorld || o.ClosedWorld}
	t.Tool.Groups, t.tagGroup = toolGroups(op, to)
	switch op.Method { // as the binding sets them, so that what Tools lists is what is served
	case "GET", "HEAD":
		t.Tool.ReadOnly = true
	case "PUT", "DELETE":
		t.Tool.Idempotent = true
	}
	if t.Tool.Name == "" {
		t.Tool.Name = o.NamePrefix + toolName(op)
		if n := len(t.Tool.Name); n > MaxPortableName {
			c.note("", "the tool name is %d characters; some clients accept at most %d: give a shorter one in Options.Tools", n, MaxPortableName)
		}
	}
	if t.Tool.Description == "" {
		desc, ok := describe(op)
		if !ok {
			c.note("", "the operation has no summary or description: its tool says only which route it calls")
		}
		t.Tool.Description = c.text(desc, "")
	}
	t.Checked = c.setInput(&t.Tool, in.schema)
	if !o.NoOutputSchemas {
		c.setOutput(&t.Tool, op)
	}
	if err := toolname.Check(t.Tool.Name); err != nil {
		c.problem("", "tool %s", err)
	}
	t.Notes = c.notes
	if len(c.problems) > 0 {
		t.Err = errors.New(strings.Join(c.problems, "; "))
	}
	return t
}

// key is how Options.Tools names op: its id, or its method and path.
func (o *Operation) key() string {
	if o.ID != "" {
		return o.ID
	}
	return o.Method + " " + o.Path
}

// toolName derives a tool name from op: its id in snake case
// (listPets is list_pets, repos/get-content is repos_get_content), or,
// without one, its method and path (GET /pets/{id} is get_pets_id).
func toolName(op *Operation) string {
	src := op.ID
	if src == "" {
		src = strings.ToLower(op.Method) + " " + op.Path
	}
	name := snakeWords(src)
	if len(name) > toolname.MaxLen {
		name = name[:toolname.MaxLen]
	}
	return name
}

// snakeWords returns src in snake case, lower case, with every run of
// characters other than letters and digits one underscore, none at
// either end.
func snakeWords(src string) string {
	snake := toolname.SnakeCase(src)
	var b strings.Builder
	for _, r := range snake {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	return strings.Trim(b.String(), "_")
}

// setInput sets t's input schema: a [schema.Schema] the server checks
// calls against when n can be one and compiles, else its JSON as it is.
// It reports whether the server checks the arguments.
func (c *converter) setInput(t *ferry.Tool, n *node) bool {
	s := n.schema()
	if !n.checked() {
		c.note("", "the input schema holds anyOf, oneOf or a list of types: it is sent as it is, and the service checks the arguments")
	} else if _, err := schema.Compile(s, schema.Policy(0)); err != nil {
		c.note("", "the input schema is sent as it is, and the service checks the arguments: %v", err)
	} else {
		t.InputSchema = s
		return true
	}
	raw, _ := json.Marshal(s) // a schema of a node always marshals
	t.RawInputSchema = raw
	return false
}

// setOutput sets t's output schema from op's first 2xx JSON answer, when
// it is an object (a tool's structured content is one).
func (c *converter) setOutput(t *ferry.Tool, op *Operation) {
	mt := successJSON(op.op.Responses)
	if mt == nil || mt.Schema == nil {
		return
	}
	oc := &converter{maxRecursion: c.maxRecursion, output: true}
	n := oc.proxy(mt.Schema, "output")
	c.notes = append(c.notes, oc.notes...)
	if len(oc.problems) > 0 || !n.is("object") {
		if len(oc.problems) > 0 {
			c.note("output", "no output schema: %s", strings.Join(oc.problems, "; "))
		}
		return
	}
	n.types = []string{"object"} // structured content is an object, never null
	s := n.schema()
	if n.checked() {
		t.OutputSchema = s
		return
	}
	raw, _ := json.Marshal(s) // a schema of a node always marshals
	t.RawOutputSchema = raw
}

// successJSON returns the JSON media type of the first 2xx answer.
func successJSON(r *v3.Responses) *v3.MediaType {
	if r == nil || r.Codes == nil {
		return nil
	}
	for _, code := range []string{"200", "201", "202", "203", "206", "2XX", "2xx"} {
		resp := r.Codes.GetOrZero(code)
		if resp == nil || resp.Content == nil {
			continue
		}
		for k, mt := range resp.Content.FromOldest() {
			t, _, err := mime.ParseMediaType(k)
			if err == nil && (t == "application/json" || strings.HasSuffix(t, "+json")) {
				return mt
			}
		}
		return nil
	}
	return nil
}
