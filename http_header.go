package ferry

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonnum"
)

// paramHeader is a tool argument that a 2026-07-28 client mirrors into an
// HTTP header (SEP-2243): the input schema's property Arg carries
// "x-mcp-header": Header, and the request carries Mcp-Param-Header.
type paramHeader struct {
	Arg    string
	Header string
}

// paramHeaders finds the x-mcp-header properties of a tool as tools/list
// sends it, and what is wrong with them: SEP-2243 wants each name a valid
// header token, unique within the tool ignoring case, on a property of a
// primitive type. Most tools have none, and cost nothing at call time.
func paramHeaders(wire []byte) ([]paramHeader, []string) {
	if !bytes.Contains(wire, []byte(`"x-mcp-header"`)) {
		return nil, nil
	}
	var t struct {
		InputSchema struct {
			Properties map[string]struct {
				Header *string `json:"x-mcp-header"`
				Type   any     `json:"type"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(wire, &t) != nil {
		return nil, nil // reported as an invalid schema
	}
	var out []paramHeader
	var problems []string
	seen := map[string]string{}
	for _, name := range sortedKeys(t.InputSchema.Properties) {
		prop := t.InputSchema.Properties[name]
		if prop.Header == nil {
			continue
		}
		h := *prop.Header
		switch typ, _ := prop.Type.(string); {
		case !isToken(h):
			problems = append(problems, fmt.Sprintf("property %q: x-mcp-header %q is not a valid HTTP header name", name, h))
			continue
		case seen[strings.ToLower(h)] != "":
			problems = append(problems, fmt.Sprintf("properties %q and %q: both use x-mcp-header %q (names are compared ignoring case)", seen[strings.ToLower(h)], name, h))
			continue
		case typ != "string" && typ != "number" && typ != "integer" && typ != "boolean":
			problems = append(problems, fmt.Sprintf("property %q: x-mcp-header needs a string, number, integer or boolean property", name))
			continue
		}
		seen[strings.ToLower(h)] = name
		out = append(out, paramHeader{Arg: name, Header: h})
	}
	return out, problems
}

// isToken reports whether s is an RFC 9110 token, as header names are.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call against
// its arguments, as Mcp-Name is checked against the tool's name: a header
// must be present exactly when the argument is (and not null), and carry
// its value, plain or as =?base64?...?=.
//
// A tool the caller may not see has no headers to check: its call then
// answers as an unknown tool's does.
func (s *Server) checkParamHeaders(r *request) error {
	e, hd := r.target.tool, r.peer.header
	if e == nil || len(e.params) == 0 || r.target.access == accessHidden {
		return nil
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(r.params.Arguments, &args) // not an object: validation reports it
	for _, ph := range e.params {
		name := "Mcp-Param-" + ph.Header
		raw, err := singleHeader(hd, name)
		if err != nil {
			return err
		}
		_, sent := hd[http.CanonicalHeaderKey(name)] // an empty value mirrors ""
		arg, has := args[ph.Arg]
		if has && string(arg) == "null" {
			has = false
		}
		body := "the body's argument " + strconv.Quote(ph.Arg) + " is "
		switch {
		case !has && !sent:
			continue
		case !sent:
			return headerMismatch(name, "", body+string(arg))
		case !has:
			return headerMismatch(name, raw, body+"missing")
		}
		v, ok := decodeHeaderValue(raw)
		if !ok || !headerMatches(v, arg) {
			return headerMismatch(name, raw, body+string(arg))
		}
	}
	return nil
}

// headerMatches reports whether a header's decoded value is the argument:
// a string as it is, a boolean as true or false, and a number written as
// a JSON number of exactly the same value (so 8 matches 8.0, but not 0x1p3,
// and no two integers beyond float64's precision match each other).
func headerMatches(v string, arg json.RawMessage) bool {
	switch {
	case len(arg) == 0:
		return false
	case arg[0] == '"':
		var x string
		return json.Unmarshal(arg, &x) == nil && v == x
	case string(arg) == "true" || string(arg) == "false":
		return v == string(arg)
	case arg[0] == '-' || arg[0] >= '0' && arg[0] <= '9':
		return isJSONNumber(v) && jsonnum.Equal([]byte(v), arg)
	}
	return false // objects and arrays are not mirrored
}

// isJSONNumber reports whether s is a number as JSON writes one.
func isJSONNumber(s string) bool {
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// headerMismatch is the error for a header whose value got disagrees with
// what the body says (body, a phrase: "the body says 'tools/call'").
func headerMismatch(header, got, body string) *Error {
	return &Error{Code: CodeHeaderMismatch, Message: "header mismatch: " + header + " is " + quoteOrMissing(got) + " but " + body}
}

const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// checkModernHeaders checks that the routing headers repeat the body, each
// sent once: an intermediary that routes or authorizes on a header must
// read the value the server acts on.
func (s *Server) checkModernHeaders(r *request) error {
	p, hd := r.params, r.peer.header
	if p.Meta.Version == "" {
		return nil // checkModern refuses it
	}
	says := func(want string) string { return "the body says " + quoteOrMissing(want) }
	if v, err := singleHeader(hd, headerProtocolVersion); err != nil || v != string(p.Meta.Version) {
		return orMismatch(err, "MCP-Protocol-Version", v, says(string(p.Meta.Version)))
	}
	if v, err := singleHeader(hd, headerMethod); err != nil || v != r.method {
		return orMismatch(err, "Mcp-Method", v, says(r.method))
	}
	if r.row == nil || r.row.target == targetNone {
		return nil
	}
	name := r.target.name
	raw, err := singleHeader(hd, headerName)
	if v, ok := decodeHeaderValue(raw); err != nil || !ok || v != name {
		return orMismatch(err, "Mcp-Name", raw, says(name))
	}
	return s.checkParamHeaders(r)
}

// singleHeader returns the value of the header name, "" when it is absent,
// and an error when it is sent more than once.
func singleHeader(hd http.Header, name string) (string, error) {
	vs := hd[http.CanonicalHeaderKey(name)]
	switch len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	}
	return "", &Error{Code: CodeHeaderMismatch, Message: "header mismatch: " + name + " is sent " + strconv.Itoa(len(vs)) + " times; send it once"}
}

// orMismatch returns err if there is one, and otherwise the error for a
// header whose value got disagrees with the body.
func orMismatch(err error, header, got, body string) error {
	if err != nil {
		return err
	}
	return headerMismatch(header, got, body)
}

func quoteOrMissing(s string) string {
	if s == "" {
		return "missing"
	}
	return "'" + s + "'"
}

// decodeHeaderValue undoes the =?base64?...?= form clients use for values
// that are not plain ASCII.
func decodeHeaderValue(v string) (string, bool) {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= 11 {
		data, err := base64.StdEncoding.DecodeString(v[9 : len(v)-2])
		if err != nil {
			return "", false
		}
		return string(data), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c > 0x7e) {
			return "", false
		}
	}
	return v, true
}
