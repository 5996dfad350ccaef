package route

import (
	"net/http"
	"strings"
)

// argumentPath returns the path of the tool argument that a problem
// document's field error location names in the request pl built, so
// that the model reads the names it sent: a member of the JSON body
// ("body.lines[0].sku", or the pointer "/body/lines/0/sku") is that
// argument's path ("lines[0].sku"), and the body as a whole ("body") is
// the arguments as a whole (""), or, when one argument is the whole body
// (in:"body"), that argument and its path; a path wildcard ("path.id"), a
// query parameter ("query.tags[1]", by the parameter's name) or a header
// ("header.Idempotency-Key", in any case) an argument filled is that
// argument ("id", "tags[1]", "key"). Only arguments of the tool's input schema are named so. Any
// other location (another member, a header the binding sets itself, a
// cookie, a location with no such prefix) is returned as it is, as is
// every location for a nil pl (an [Answer] of [Binding.Ask], whose
// request a job built).
func (pl *plan) argumentPath(loc string) string {
	if pl == nil {
		return loc
	}
	if arg, ok := pl.wholeBody(); ok && (loc == "body" || strings.HasPrefix(loc, "body.") || strings.HasPrefix(loc, "body[")) {
		return arg + loc[len("body"):]
	}
	part, rest, ok := strings.Cut(loc, ".")
	if !ok {
		if loc == "body" && pl.rest == inBody {
			return ""
		}
		return loc
	}
	name := rest[:strings.IndexAny(rest+".", ".[")]
	whole := name == rest
	switch part {
	case "body":
		if pl.rest == inBody && pl.args[name] && !pl.placed(name) {
			return rest
		}
	case "query":
		for _, f := range pl.fields {
			if f.place == inQuery && hasPathPrefix(rest, f.key) {
				return f.name + rest[len(f.key):]
			}
		}
		if pl.args[name] && pl.rest == inQuery && !pl.placed(name) {
			return rest
		}
	case "path":
		if whole && pl.placedIn(name, inPath) {
			return name
		}
	case "header":
		h := http.CanonicalHeaderKey(name)
		for _, f := range pl.fields {
			if whole && f.place == inHeader && f.header == h {
				return f.name
			}
		}
	}
	return loc
}

// wholeBody returns the argument that is the whole body (in:"body"), if
// any.
func (pl *plan) wholeBody() (string, bool) {
	for _, f := range pl.fields {
		if f.place == inWholeBody {
			return f.name, true
		}
	}
	return "", false
}

// placedIn reports whether the argument name is placed in p.
func (pl *plan) placedIn(name string, p place) bool {
	for _, f := range pl.fields {
		if f.name == name && f.place == p {
			return true
		}
	}
	return false
}

// hasPathPrefix reports whether path is name, or starts with name and a
// "." or "[" after it.
func hasPathPrefix(path, name string) bool {
	rest, ok := strings.CutPrefix(path, name)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}
