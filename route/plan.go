package route

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/fields"
)

// place is where an argument goes in the routed request.
type place uint8

const (
	inBody place = iota
	inQuery
	inHeader
	inPath
	inWholeBody // the whole JSON body, for in:"body"
)

// field is an argument placed somewhere else than the default.
type field struct {
	name   string // its JSON name
	place  place
	header string // the header, canonical, for inHeader
	key    string // the query parameter's name, for inQuery: name unless in:"query=key"
	seg    int    // the index of its wildcard in the route's segments, for inPath
}

// plan is how one tool's calls become requests, worked out once.
type plan struct {
	tool   string
	pat    *pattern
	fields []field
	// rest is where the arguments not in fields go: the query string for
	// GET, HEAD and DELETE, and for any route whose body one argument
	// fills (in:"body"); the JSON body otherwise.
	rest place
	// args are the names of the input schema's properties (none when it
	// has none that can be read).
	args map[string]bool
}

// prop is what the tool's input schema says of one property.
type prop struct {
	typ   string // its JSON type, or "" for any
	items string // for arrays, the items' type, or ""
}

// newPlan parses text and places t's arguments; tags maps JSON names to
// their in tag, for typed tools. It returns every problem it finds.
func newPlan(t *ferry.Tool, text, prefix string, tags map[string]string) (*plan, []error) {
	pat, err := parsePattern(text, prefix)
	if err != nil {
		return nil, []error{err}
	}
	pl := &plan{tool: t.Name, pat: pat, rest: inBody}
	if m := pat.method; m == http.MethodGet || m == http.MethodHead || m == http.MethodDelete {
		pl.rest = inQuery
	}
	props, known, err := properties(t)
	if err != nil {
		return nil, []error{err}
	}
	pl.args = make(map[string]bool, len(props))
	for name := range props {
		pl.args[name] = true
	}
	var problems []error
	for i, s := range pat.segs {
		if s.wild == "" {
			continue
		}
		if err := checkWildcard(s, props, known, tags); err != nil {
			problems = append(problems, err)
			continue
		}
		pl.fields = append(pl.fields, field{name: s.wild, place: inPath, seg: i})
	}
	problems = append(problems, pl.placeTagged(tags, props)...)
	if pl.rest == inQuery {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if err := queryable(name, props[name]); err != nil && !pl.placed(name) {
				problems = append(problems, err)
			}
		}
	}
	return pl, problems
}

// checkWildcard reports whether an argument can fill wildcard s.
func checkWildcard(s segment, props map[string]prop, known bool, tags map[string]string) error {
	p, ok := props[s.wild]
	switch {
	case !known:
		return fmt.Errorf("wildcard {%s}: the tool needs an input schema with a property %q to fill it", s.wild, s.wild)
	case !ok:
		return fmt.Errorf("wildcard {%s}: the input schema has no property %q to fill it", s.wild, s.wild)
	case tags[s.wild] != "" && tags[s.wild] != "path":
		return fmt.Errorf("wildcard {%s}: property %q is tagged in:%q, but fills the path", s.wild, s.wild, tags[s.wild])
	case s.multi && p.typ != "string" && p.typ != "":
		return fmt.Errorf("wildcard {%s...}: property %q must be a string, not %s", s.wild, s.wild, p.typ)
	case p.typ == "object" || p.typ == "array" || p.typ == "null":
		return fmt.Errorf("wildcard {%s}: property %q is %s: a path segment holds a string, number or boolean", s.wild, s.wild, article(p.typ))
	}
	return nil
}

// placeTagged places the fields tagged in:"query", in:"header=Name" and
// in:"path".
func (pl *plan) placeTagged(tags map[string]string, props map[string]prop) []error {
	var problems []error
	for _, name := range slices.Sorted(maps.Keys(tags)) {
		tag := tags[name]
		kind, arg, _ := strings.Cut(tag, "=")
		if _, ok := props[name]; !ok {
			problems = append(problems, fmt.Errorf("argument %q is placed in:%q, but the input schema has no property %q", name, tag, name))
			continue
		}
		switch {
		case kind == "path":
			if !pl.placed(name) {
				problems = append(problems, fmt.Errorf("field %q is tagged in:\"path\", but the path has no wildcard {%s}", name, name))
			}
		case kind == "query":
			if err := queryable(name, props[name]); err != nil {
				problems = append(problems, err)
				continue
			}
			if arg == "" && strings.Contains(tag, "=") {
				problems = append(problems, fmt.Errorf("field %q: tag in:%q: name the query parameter, or write in:\"query\"", name, tag))
				continue
			}
			pl.fields = append(pl.fields, field{name: name, place: inQuery, key: cmp.Or(arg, name)})
		case kind == "body" && arg == "" && tag == "body":
			if err := pl.placeBody(name); err != nil {
				problems = append(problems, err)
			}
		case kind == "header":
			h, err := headerName(name, arg, props[name])
			if err != nil {
				problems = append(problems, err)
				continue
			}
			pl.fields = append(pl.fields, field{name: name, place: inHeader, header: h})
		default:
			problems = append(problems, fmt.Errorf("field %q: tag in:%q: want in:\"query\", in:\"query=name\", in:\"header=Name\", in:\"path\" or in:\"body\"", name, tag))
		}
	}
	return problems
}

// placeBody places the argument name as the whole JSON body: the
// arguments no field places then go to the query string.
func (pl *plan) placeBody(name string) error {
	switch {
	case pl.pat.method == http.MethodGet || pl.pat.method == http.MethodHead:
		return fmt.Errorf("field %q is tagged in:\"body\", but a %s request has no body", name, pl.pat.method)
	case slices.ContainsFunc(pl.fields, func(f field) bool { return f.place == inWholeBody }):
		return fmt.Errorf("field %q is tagged in:\"body\", but another field fills the body already", name)
	}
	pl.fields = append(pl.fields, field{name: name, place: inWholeBody})
	pl.rest = inQuery
	return nil
}

// placed reports whether the argument name is placed already.
func (pl *plan) placed(name string) bool {
	for _, f := range pl.fields {
		if f.name == name {
			return true
		}
	}
	return false
}

// queryable reports whether a property can travel in the query string.
func queryable(name string, p prop) error {
	switch {
	case p.typ == "object":
		return fmt.Errorf("property %q is an object: the query string holds strings, numbers, booleans and arrays of them", name)
	case p.typ == "array" && (p.items == "object" || p.items == "array"):
		return fmt.Errorf("property %q is an array of %ss: the query string holds arrays of strings, numbers and booleans", name, p.items)
	}
	return nil
}

// reserved reports whether the canonical header h is one a field may not
// set: one the binding sets itself, one it forwards from every MCP
// request, Content-Type or Accept.
func reserved(h string) bool {
	return ownHeader(h) || slices.Contains(forwardedAlways, h) || h == "Content-Type" || h == "Accept"
}

// headerName checks the header a field is tagged to go to.
func headerName(field, name string, p prop) (string, error) {
	if !validHeaderName(name) {
		return "", fmt.Errorf("field %q: tag in:\"header=%s\": not a header name", field, name)
	}
	h := http.CanonicalHeaderKey(name)
	if reserved(h) {
		return "", fmt.Errorf("field %q: header %s is set by the binding", field, h)
	}
	if p.typ == "object" || p.typ == "array" {
		return "", fmt.Errorf("field %q is %s: a header holds a string, number or boolean", field, article(p.typ))
	}
	return h, nil
}

// validHeaderName reports whether s is an HTTP token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func article(typ string) string {
	switch typ {
	case "object", "array", "integer":
		return "an " + typ
	}
	return "a " + typ
}

// properties reads the top-level properties of t's input schema; known
// is false when it has none that can be read.
func properties(t *ferry.Tool) (map[string]prop, bool, error) {
	props := map[string]prop{}
	if s := t.InputSchema; s != nil {
		for name, p := range s.Properties {
			q := prop{typ: p.Type}
			if p.Items != nil {
				q.items = p.Items.Type
			}
			props[name] = q
		}
		return props, true, nil
	}
	if t.RawInputSchema == nil {
		return props, false, nil
	}
	var raw struct {
		Properties map[string]struct {
			Type  json.RawMessage `json:"type"`
			Items *struct {
				Type json.RawMessage `json:"type"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(t.RawInputSchema, &raw); err != nil {
		return nil, false, fmt.Errorf("reading RawInputSchema: %w", err)
	}
	for name, p := range raw.Properties {
		q := prop{typ: rawType(p.Type)}
		if p.Items != nil {
			q.items = rawType(p.Items.Type)
		}
		props[name] = q
	}
	return props, true, nil
}

// rawType reads a schema's "type": a string, or the only non-null type
// of a list; "" for anything else.
func rawType(data json.RawMessage) string {
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(data, &list) != nil {
		return ""
	}
	typ := ""
	for _, t := range list {
		if t != "null" {
			if typ != "" {
				return ""
			}
			typ = t
		}
	}
	return typ
}

// fieldTags reads the in tags of the fields of struct type t, by their
// JSON names.
func fieldTags(t reflect.Type) (map[string]string, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("input type %v: it must be a struct", t)
	}
	tags := map[string]string{}
	for _, f := range fields.Of(t) {
		if v, ok := f.StructField.Tag.Lookup("in"); ok {
			tags[f.Name] = v
		}
	}
	return tags, nil
}
