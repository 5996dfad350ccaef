package openapi

import (
	"fmt"
	"go/token"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
)

// input is an operation's arguments merged into one object: its schema,
// where each argument goes (route's in words), and the route pattern,
// whose wildcards are named after the arguments that fill them.
type input struct {
	schema  *node
	in      map[string]string
	pattern string
}

// param is one parameter of an operation, path item parameters included.
type param struct {
	p    *v3.Parameter
	name string // the argument's name
}

// portableName matches the property names every client accepts.
var portableName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)

// buildInput merges op's parameters and JSON body into one input object.
// Body properties keep their names, since they travel as written; a
// parameter whose name a body property (or an earlier parameter) has is
// renamed after where it goes (path_id, query_id, header_id), with a note.
func (c *converter) buildInput(o *Operation) *input {
	in := &input{schema: &node{types: []string{"object"}, closed: true}, in: map[string]string{}}
	taken := map[string]bool{}
	b := c.body(o, taken)
	params := c.params(o)
	for i := range params {
		c.placeParam(&params[i], in, taken)
	}
	in.pattern = c.pattern(o, params)
	switch {
	case b.merged != nil:
		in.schema.props = append(in.schema.props, b.merged.props...)
		in.schema.required = append(in.schema.required, b.merged.required...)
	case b.whole != nil:
		in.schema.props = append(in.schema.props, property{name: "body", n: b.whole})
		if b.required {
			in.schema.required = append(in.schema.required, "body")
		}
		in.in["body"] = "body"
	}
	return in
}

// requestBody is an operation's JSON body: an object whose properties
// are merged into the input, or one argument, "body".
type requestBody struct {
	merged, whole *node
	required      bool
}

// params lists op's parameters and its path item's, the operation's
// winning for the same name and place; cookie parameters are left out.
func (c *converter) params(o *Operation) []param {
	var out []param
	seen := map[string]bool{}
	for _, list := range [][]*v3.Parameter{o.op.Parameters, o.item.Parameters} {
		for _, p := range list {
			if p == nil {
				continue
			}
			key := p.In + " " + p.Name
			if p.In == "header" {
				key = p.In + " " + http.CanonicalHeaderKey(p.Name)
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			switch {
			case p.In == "cookie" && required(p):
				c.problem("", "cookie parameter %q is required, and a tool sends no cookies", p.Name)
			case p.In == "cookie":
				c.note("", "cookie parameter %q left out: a tool sends no cookies", p.Name)
			case p.In == "header" && ignoredHeader(p.Name):
				c.note("", "header parameter %q left out: OpenAPI ignores it (the binding sets it)", p.Name)
			case p.In == "header" && (slices.Contains(c.ownHeaders, http.CanonicalHeaderKey(p.Name)) || http.CanonicalHeaderKey(p.Name) == "Cookie"):
				c.note("", "header parameter %q left out: the gateway sets it", p.Name)
			default:
				out = append(out, param{p: p})
			}
		}
	}
	// Path parameters first, then the query's, then the headers', each in
	// the document's order.
	slices.SortStableFunc(out, func(a, b param) int { return placeOrder(a.p.In) - placeOrder(b.p.In) })
	return out
}

func placeOrder(in string) int {
	switch in {
	case "path":
		return 0
	case "query":
		return 1
	}
	return 2
}

// ignoredHeader reports whether a header parameter is one OpenAPI says to
// ignore, and the binding sets.
func ignoredHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Content-Type", "Authorization":
		return true
	}
	return false
}

func required(p *v3.Parameter) bool { return p.Required != nil && *p.Required || p.In == "path" }

// placeParam names the argument of p, adds its schema and says where it
// goes.
func (c *converter) placeParam(p *param, in *input, taken map[string]bool) {
	name := argName(p.p.Name, p.p.In == "path")
	if taken[name] {
		base := p.p.In + "_" + argName(p.p.Name, true)
		name = base
		for i := 2; taken[name]; i++ {
			name = base + strconv.Itoa(i)
		}
	}
	if name != p.p.Name {
		c.note("", "%s parameter %q is the argument %q", p.p.In, p.p.Name, name)
	}
	taken[name] = true
	p.name = name
	s := c.paramSchema(p.p, name)
	in.schema.props = append(in.schema.props, property{name: name, n: s})
	if required(p.p) {
		in.schema.required = append(in.schema.required, name)
	}
	switch p.p.In {
	case "path":
		in.in[name] = "path"
	case "query":
		in.in[name] = "query"
		if name != p.p.Name {
			in.in[name] = "query=" + p.p.Name
		}
	case "header":
		in.in[name] = "header=" + p.p.Name
	default:
		c.problem(name, "a parameter in %q cannot be sent", p.p.In)
	}
}

// paramSchema converts a parameter's schema, with its description; a
// serialization the binding does not write is a problem.
func (c *converter) paramSchema(p *v3.Parameter, name string) *node {
	if p.Schema == nil {
		if p.Content != nil && p.Content.Len() > 0 {
			c.problem(name, "a parameter described by content (a serialized JSON value) cannot be sent")
		}
		return &node{types: []string{"string"}, description: c.text(p.Description, name)}
	}
	s := c.proxy(p.Schema, name)
	if p.Description != "" {
		s.description = c.text(p.Description, name)
	}
	s.deprecated = s.deprecated || p.Deprecated
	if p.Example != nil && s.examples == nil {
		if raw := c.value(p.Example, name, "example"); raw != nil {
			s.examples = append(s.examples, raw)
		}
	}
	c.checkStyle(p, s, name)
	return s
}

// checkStyle reports a parameter serialization the binding does not
// write: only the defaults (simple for path and header, form with explode
// for query) of strings, numbers, booleans and, in the query, arrays of
// them.
func (c *converter) checkStyle(p *v3.Parameter, s *node, name string) {
	explode := p.Explode == nil || *p.Explode
	switch {
	case p.In == "query" && (p.Style != "" && p.Style != "form" || !explode && s.is("array")):
		c.problem(name, "query parameter %q has style %q (explode %v): only form with explode (a=1&a=2) is sent", p.Name, cmpOr(p.Style, "form"), explode)
	case p.In != "query" && p.Style != "" && p.Style != "simple":
		c.problem(name, "%s parameter %q has style %q: only simple is sent", p.In, p.Name, p.Style)
	case s.is("object"):
		c.problem(name, "%s parameter %q is an object, which the binding does not serialize", p.In, p.Name)
	case p.In != "query" && s.is("array"):
		c.problem(name, "%s parameter %q is an array, which the binding does not serialize", p.In, p.Name)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// argName is the argument of a parameter: its name when every client
// accepts it as a property name (and, for a path wildcard, when it is an
// identifier), otherwise its letters and digits in snake case.
func argName(name string, wildcard bool) string {
	if portableName.MatchString(name) && (!wildcard || token.IsIdentifier(name)) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	s := strings.Trim(b.String(), "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "p_" + s
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// pattern writes op's route in [net/http.ServeMux] syntax, each path
// template's wildcard named after its argument. A wildcard that is not a
// whole segment is a problem.
func (c *converter) pattern(o *Operation, params []param) string {
	var b strings.Builder
	b.WriteString(o.Method + " ")
	segs := strings.Split(o.Path, "/")
	for i, seg := range segs {
		if i > 0 {
			b.WriteByte('/')
		}
		if !strings.ContainsAny(seg, "{}") {
			b.WriteString(seg)
			continue
		}
		name, ok := strings.CutPrefix(seg, "{")
		name, ok2 := strings.CutSuffix(name, "}")
		if !ok || !ok2 || strings.ContainsAny(name, "{}") {
			c.problem("", "path segment %q holds a parameter and other text: a tool fills whole segments only", seg)
			b.WriteString(seg)
			continue
		}
		i := slices.IndexFunc(params, func(p param) bool { return p.p.In == "path" && p.p.Name == name })
		if i < 0 {
			c.problem("", "the path's {%s} is not a path parameter of the operation", name)
			b.WriteString(seg)
			continue
		}
		b.WriteString("{" + params[i].name + "}")
	}
	return b.String()
}

// body converts op's JSON request body. An object with properties is
// merged into the input (its properties claim their names first); any
// other body is the argument "body" (in:"body"). A body in no JSON media
// type is a problem when required, and left out otherwise.
func (c *converter) body(o *Operation, taken map[string]bool) requestBody {
	rb := o.op.RequestBody
	if rb == nil || rb.Content == nil || rb.Content.Len() == 0 {
		return requestBody{}
	}
	mt, ok := jsonMedia(rb)
	needed := rb.Required != nil && *rb.Required
	if !ok {
		types := slices.Collect(rb.Content.KeysFromOldest())
		if needed {
			c.problem("body", "the request body is %s, and a tool sends JSON only", strings.Join(types, " or "))
		} else {
			c.note("body", "the optional %s request body is left out: a tool sends JSON only", strings.Join(types, " or "))
		}
		return requestBody{}
	}
	s := c.proxy(mt.Schema, "body")
	if desc := c.text(rb.Description, "body"); desc != "" && s.description == "" {
		s.description = desc
	}
	if s.is("object") && len(s.props) > 0 && s.additional == nil && len(s.anyOf) == 0 && len(s.oneOf) == 0 {
		for _, p := range s.props {
			taken[p.name] = true
		}
		if !needed {
			s.required = nil
		}
		return requestBody{merged: s}
	}
	taken["body"] = true
	return requestBody{whole: s, required: needed}
}

// jsonMedia returns the JSON media type of a request body:
// application/json, or else the first +json type.
func jsonMedia(rb *v3.RequestBody) (*v3.MediaType, bool) {
	var first *v3.MediaType
	for k, mt := range rb.Content.FromOldest() {
		t, _, err := mime.ParseMediaType(k)
		if err != nil {
			continue
		}
		if t == "application/json" {
			return mt, true
		}
		if first == nil && strings.HasSuffix(t, "+json") {
			first = mt
		}
	}
	return first, first != nil
}

// describe is an operation's tool description: its summary and
// description, or a sentence naming its route when it has neither.
func describe(o *Operation) (string, bool) {
	var parts []string
	if s := strings.TrimSpace(o.Summary); s != "" {
		parts = append(parts, s)
	}
	if d := strings.TrimSpace(o.Description); d != "" && d != strings.TrimSpace(o.Summary) {
		parts = append(parts, d)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("Calls %s %s.", o.Method, o.Path), false
	}
	return strings.Join(parts, "\n\n"), true
}
