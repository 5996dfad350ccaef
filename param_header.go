package ferry

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// paramHeader is a tool argument that a 2026-07-28 client mirrors into an
// HTTP header (SEP-2243): the input schema's property Arg carries
// "x-mcp-header": Header, and the request carries Mcp-Param-Header.
type paramHeader struct {
	Arg    string
	Header string
}

// paramHeaders finds the x-mcp-header properties of a tool as tools/list
// sends it. Most tools have none, and cost nothing at call time.
func paramHeaders(wire []byte) []paramHeader {
	if !bytes.Contains(wire, []byte(`"x-mcp-header"`)) {
		return nil
	}
	var t struct {
		InputSchema struct {
			Properties map[string]struct {
				Header string `json:"x-mcp-header"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	if json.Unmarshal(wire, &t) != nil {
		return nil
	}
	var out []paramHeader
	for _, name := range sortedKeys(t.InputSchema.Properties) {
		if h := t.InputSchema.Properties[name].Header; h != "" {
			out = append(out, paramHeader{Arg: name, Header: h})
		}
	}
	return out
}

// checkParamHeaders checks the Mcp-Param-* headers of a tools/call against
// its arguments, as Mcp-Name is checked against the tool's name: a header
// must be present exactly when the argument is (and not null), and carry
// its value, plain or as =?base64?...?=.
func (s *Server) checkParamHeaders(hd http.Header, p *wireParams) error {
	s.mu.RLock()
	e, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok || len(e.params) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(p.Arguments, &args) // not an object: validation reports it
	for _, ph := range e.params {
		name := "Mcp-Param-" + ph.Header
		raw, sent := hd[http.CanonicalHeaderKey(name)]
		arg, has := args[ph.Arg]
		if has && string(arg) == "null" {
			has = false
		}
		switch {
		case !has && !sent:
			continue
		case !sent:
			return headerMismatch(name, "", "argument "+strconv.Quote(ph.Arg)+" is "+string(arg))
		case !has:
			return headerMismatch(name, raw[0], "argument "+strconv.Quote(ph.Arg)+" is missing")
		}
		v, ok := decodeHeaderValue(raw[0])
		if !ok || !headerMatches(v, arg) {
			return headerMismatch(name, raw[0], "argument "+strconv.Quote(ph.Arg)+" is "+string(arg))
		}
	}
	return nil
}

// headerMatches reports whether a header's decoded value is the argument:
// a string as it is, a number by value, a boolean as true or false.
func headerMatches(v string, arg json.RawMessage) bool {
	var x any
	if json.Unmarshal(arg, &x) != nil {
		return false
	}
	switch x := x.(type) {
	case string:
		return v == x
	case bool:
		return v == strconv.FormatBool(x)
	case float64:
		f, err := strconv.ParseFloat(v, 64)
		return err == nil && f == x
	}
	return false // objects and arrays are not mirrored
}

func headerMismatch(header, got, want string) *Error {
	return &Error{Code: CodeHeaderMismatch, Message: "header mismatch: " + header + " is " + quoteOrMissing(got) + " but the body's " + want}
}
