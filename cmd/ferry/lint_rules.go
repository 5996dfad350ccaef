package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
	"github.com/ferry-mcp/ferry/toolname"
)

// The lint rules, by their stable ids. lintRules lists them for the help
// and for -ignore.
var lintRules = []struct{ id, what string }{
	{"name-invalid", "a tool name breaks the protocol's rule: 1 to 128 of A-Z a-z 0-9 _ - ."},
	{"name-missing", "a prompt, resource or template has no name"},
	{"name-duplicate", "two entries of a kind share a name (resources: a URI)"},
	{"name-case", "two names differ only in case, which some clients fold together"},
	{"description-missing", "no description: a model cannot tell when to use it"},
	{"description-short", "a tool's or prompt's description is under 20 characters or one word"},
	{"description-long", "a description is over 1024 characters, which some clients refuse"},
	{"title-missing", "a tool or prompt has no title for a client to show"},
	{"hints-missing", "a tool's annotations leave readOnlyHint (and, for writes, destructiveHint, idempotentHint) or openWorldHint unset"},
	{"input-schema-missing", "a tool has no inputSchema, which the protocol requires"},
	{"schema-not-object", `an input or output schema's root is not "type": "object"`},
	{"schema-root-combinator", "an input schema has anyOf, oneOf or allOf at its root, which the Anthropic API refuses for every request listing the tool"},
	{"schema-invalid", "a schema is not valid JSON Schema 2020-12"},
	{"schema-unportable", "a schema holds what some clients reject: $ref, boolean subschemas, long descriptions"},
	{"property-description-missing", "input schema properties without a description"},
	{"output-nullable-array", "an output schema lets an array be null too (a Go nil slice): strict clients warn, every client must handle both"},
	{"required-undeclared", "required names a property the schema does not declare"},
	{"argument-invalid", "a prompt argument has no name, or a name given twice"},
	{"argument-description-missing", "prompt arguments without a description"},
	{"uri-invalid", "a resource URI is not an absolute URI, or a template's braces do not pair"},
	{"mimetype-missing", "a resource or template does not say its mimeType"},
	{"openapi-unservable", "with -openapi: an operation cannot be served (a body that is not JSON, a parameter's style, ...)"},
	{"openapi-changed", "with -openapi: the conversion renamed an argument, cut a recursion or left out what the schema does not check"},
}

// minDescription is the shortest tool or prompt description that lint
// accepts, in characters.
const minDescription = 20

// A problem is one finding of lint: what has it (kind and name), the
// rule's id and what is wrong.
type problem struct {
	kind, name, rule, msg string
}

// String is the problem's line: `tool get_order: description is 12
// characters; ... [description-short]`. Control characters a server sent
// are escaped, so a problem is always one line.
func (p problem) String() string {
	return oneLine(fmt.Sprintf("%s %s: %s [%s]", p.kind, displayName(p.name), p.msg, p.rule))
}

// maxShownName bounds how much of a name a line shows, in characters.
const maxShownName = 80

// displayName writes a name as it is when it is plain, quoted otherwise;
// a name over maxShownName characters is cut and quoted, marked with "...".
func displayName(name string) string {
	if utf8.RuneCountInString(name) > maxShownName {
		return strconv.Quote(string([]rune(name)[:maxShownName])) + "..."
	}
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' }) {
		return strconv.Quote(name)
	}
	return name
}

// listing is what lint checks: the raw items of a server's lists.
type listing struct {
	tools, prompts, resources, templates []json.RawMessage
}

// linter collects the problems of a listing.
type linter struct{ problems []problem }

func (l *linter) add(kind, name, rule, format string, args ...any) {
	l.problems = append(l.problems, problem{kind, name, rule, fmt.Sprintf(format, args...)})
}

// lintListing returns the problems of everything in ls: tools, then
// prompts, resources and templates, each in the server's order, and for
// each entry its problems in the order of lintRules.
func lintListing(ls listing) []problem {
	l := &linter{}
	names := &nameSet{}
	for _, raw := range ls.tools {
		l.tool(raw, names)
	}
	names = &nameSet{}
	for _, raw := range ls.prompts {
		l.prompt(raw, names)
	}
	names = &nameSet{}
	for _, raw := range ls.resources {
		l.resource("resource", "uri", raw, names)
	}
	names = &nameSet{}
	for _, raw := range ls.templates {
		l.resource("template", "uriTemplate", raw, names)
	}
	return l.problems
}

// wireTool is the part of a listed tool lint reads.
type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  json.RawMessage `json:"annotations"`
}

func (l *linter) tool(raw json.RawMessage, names *nameSet) {
	var t wireTool
	if err := decodeJSON(raw, &t); err != nil {
		l.add("tool", "", "schema-invalid", "the listing's entry is not a tool object: %v", err)
		return
	}
	if err := toolname.Check(t.Name); err != nil {
		l.add("tool", t.Name, "name-invalid", "%v", err)
	}
	l.duplicate("tool", t.Name, names, true)
	l.description("tool", t.Name, t.Description, true)
	ann := map[string]json.RawMessage{}
	_ = json.Unmarshal(t.Annotations, &ann) // absent or not an object: no hints
	if t.Title == "" && jsonString(ann["title"]) == "" {
		l.add("tool", t.Name, "title-missing", "has no title (title or annotations.title) for clients to show")
	}
	if missing := missingHints(ann); len(missing) > 0 {
		l.add("tool", t.Name, "hints-missing", "annotations leave %s unset; clients then assume the worst", strings.Join(missing, ", "))
	}
	if isAbsent(t.InputSchema) {
		l.add("tool", t.Name, "input-schema-missing", "has no inputSchema; the protocol requires one (at least {\"type\": \"object\"})")
	} else {
		l.schema(t.Name, "input schema", t.InputSchema)
		l.properties(t.Name, t.InputSchema)
	}
	if !isAbsent(t.OutputSchema) {
		l.schema(t.Name, "output schema", t.OutputSchema)
		if paths := nullableArrays(t.OutputSchema); len(paths) > 0 {
			l.add("tool", t.Name, "output-nullable-array", "output schema lets %s be null as well as an array (what a Go nil slice writes): "+
				"clients must handle both, and strict ones warn (the MCP Inspector's --strict); return an empty array and declare "+
				`"type": "array" (in Go, tag the field omitzero)`, strings.Join(paths, ", "))
		}
	}
}

// nameSet remembers the names of one kind, exactly and folded.
type nameSet struct {
	exact  map[string]bool
	folded map[string]string
}

// duplicate reports a name seen before, exactly or, when fold is set, but
// for case.
func (l *linter) duplicate(kind, name string, names *nameSet, fold bool) {
	if name == "" {
		return
	}
	if names.exact == nil {
		names.exact, names.folded = map[string]bool{}, map[string]string{}
	}
	folded := name
	if fold {
		folded = strings.ToLower(name)
	}
	switch first, seen := names.folded[folded]; {
	case names.exact[name]:
		l.add(kind, name, "name-duplicate", "is listed more than once")
	case seen:
		l.add(kind, name, "name-case", "differs from %s only in case; some clients fold names together", displayName(first))
	default:
		names.folded[folded] = name
	}
	names.exact[name] = true
}

// description reports a missing or too long description, and for tools
// and prompts (quality) one too short for a model to decide from.
func (l *linter) description(kind, name, d string, quality bool) {
	d = strings.TrimSpace(d)
	switch n := utf8.RuneCountInString(d); {
	case n == 0 && quality:
		l.add(kind, name, "description-missing", "has no description: say what it does and when to use it")
	case n == 0:
		l.add(kind, name, "description-missing", "has no description: say what it holds and when to read it")
	case n > schema.MaxDescription:
		l.add(kind, name, "description-long", "description is %d characters; some clients refuse more than %d", n, schema.MaxDescription)
	case quality && n < minDescription:
		l.add(kind, name, "description-short", "description is %d characters; say what it does and when to use it in at least %d", n, minDescription)
	case quality && len(strings.Fields(d)) == 1:
		l.add(kind, name, "description-short", "description is a single word; say what it does and when to use it")
	}
}

// missingHints names the hints annotations leave unset (or set to
// something not a boolean). A tool that only reads needs no
// destructiveHint or idempotentHint.
func missingHints(ann map[string]json.RawMessage) []string {
	hints := []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
	if string(ann["readOnlyHint"]) == "true" {
		hints = []string{"openWorldHint"}
	}
	var missing []string
	for _, h := range hints {
		if v := string(ann[h]); v != "true" && v != "false" {
			missing = append(missing, h)
		}
	}
	return missing
}

// schema checks one of a tool's schemas: an object root, valid JSON
// Schema, portable.
func (l *linter) schema(tool, what string, raw json.RawMessage) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil || string(root["type"]) != `"object"` {
		l.add("tool", tool, "schema-not-object", `%s's root is not "type": "object"; clients refuse the tool`, what)
	}
	if what == "input schema" {
		var at []string
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if root[k] != nil {
				at = append(at, k)
			}
		}
		if len(at) > 0 {
			l.add("tool", tool, "schema-root-combinator", "input schema has %s at its root, which the Anthropic API refuses "+
				"(every request that lists the tool fails): express the rule inside the properties, or with if/then/else", strings.Join(at, " and "))
		}
	}
	for _, p := range invalidSchema(raw) {
		l.add("tool", tool, "schema-invalid", "%s: %s", what, p)
	}
	for _, err := range splitErrors(schema.PortableJSON(raw)) {
		l.add("tool", tool, "schema-unportable", "%s: %s", what, strings.TrimPrefix(err.Error(), "schema: "))
	}
}

// properties reports the input schema's top-level properties that have
// no description, and required names it does not declare.
func (l *linter) properties(tool string, raw json.RawMessage) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []json.RawMessage          `json:"required"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return // reported by schema
	}
	var bare []string
	for _, name := range slices.Sorted(mapKeys(s.Properties)) {
		var p struct {
			Description json.RawMessage `json:"description"`
		}
		if json.Unmarshal(s.Properties[name], &p) != nil || strings.TrimSpace(jsonString(p.Description)) == "" {
			bare = append(bare, displayName(name))
		}
	}
	if len(bare) > 0 {
		l.add("tool", tool, "property-description-missing", "input properties %s have no description", strings.Join(bare, ", "))
	}
	var undeclared []string
	for _, r := range s.Required {
		if name := jsonString(r); name != "" && s.Properties[name] == nil {
			undeclared = append(undeclared, displayName(name))
		}
	}
	if len(undeclared) > 0 {
		l.add("tool", tool, "required-undeclared", "input schema requires %s but declares no such property", strings.Join(undeclared, ", "))
	}
}

// wirePrompt is the part of a listed prompt lint reads.
type wirePrompt struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"arguments"`
}

func (l *linter) prompt(raw json.RawMessage, names *nameSet) {
	var p wirePrompt
	if err := decodeJSON(raw, &p); err != nil {
		l.add("prompt", "", "argument-invalid", "the listing's entry is not a prompt object: %v", err)
		return
	}
	if p.Name == "" {
		l.add("prompt", p.Name, "name-missing", "has no name")
	}
	l.duplicate("prompt", p.Name, names, true)
	l.description("prompt", p.Name, p.Description, true)
	if p.Title == "" {
		l.add("prompt", p.Name, "title-missing", "has no title for clients to show")
	}
	var bare, seen []string
	for i, a := range p.Arguments {
		switch {
		case a.Name == "":
			l.add("prompt", p.Name, "argument-invalid", "argument %d has no name", i+1)
			continue
		case slices.Contains(seen, a.Name):
			l.add("prompt", p.Name, "argument-invalid", "argument %s is listed more than once", displayName(a.Name))
		}
		seen = append(seen, a.Name)
		if strings.TrimSpace(a.Description) == "" {
			bare = append(bare, displayName(a.Name))
		}
	}
	if len(bare) > 0 {
		l.add("prompt", p.Name, "argument-description-missing", "arguments %s have no description", strings.Join(bare, ", "))
	}
}

// resource checks a resource (key "uri") or a resource template (key
// "uriTemplate"); it is named by its URI.
func (l *linter) resource(kind, key string, raw json.RawMessage, uris *nameSet) {
	var r map[string]json.RawMessage
	if err := decodeJSON(raw, &r); err != nil {
		l.add(kind, "", "uri-invalid", "the listing's entry is not a %s object: %v", kind, err)
		return
	}
	uri := jsonString(r[key])
	switch {
	case uri == "":
		l.add(kind, uri, "uri-invalid", "has no %s", key)
	case kind == "resource" && !absoluteURI(uri):
		l.add(kind, uri, "uri-invalid", "uri is not an absolute URI (scheme:rest)")
	case kind == "template" && !pairedBraces(uri):
		l.add(kind, uri, "uri-invalid", "uriTemplate's braces do not pair into non-empty expressions")
	}
	l.duplicate(kind, uri, uris, false)
	if jsonString(r["name"]) == "" {
		l.add(kind, uri, "name-missing", "has no name; the protocol requires one")
	}
	l.description(kind, uri, jsonString(r["description"]), false)
	if jsonString(r["mimeType"]) == "" {
		l.add(kind, uri, "mimetype-missing", "has no mimeType; clients cannot tell how to show its contents")
	}
}

// decodeJSON decodes the one JSON value data holds into v, numbers as
// json.Number.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("data after the JSON value")
	}
	return nil
}

// jsonString returns the string raw holds, or "" when it holds another
// kind of value or nothing.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// isAbsent reports whether raw is missing or null.
func isAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// splitErrors returns the errors joined in err, one by one.
func splitErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// absoluteURI reports whether s parses as a URI with a scheme.
func absoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != ""
}

// pairedBraces reports whether the braces of a URI template (RFC 6570)
// pair, none nested, none empty.
func pairedBraces(s string) bool {
	open := -1
	for i, c := range s {
		switch {
		case c == '{' && open >= 0, c == '}' && open < 0, c == '}' && i == open+1:
			return false
		case c == '{':
			open = i
		case c == '}':
			open = -1
		}
	}
	return open < 0
}
