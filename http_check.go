package ferry

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonnum"
)

// This file holds the checks an HTTP request passes before it is served:
// its Host and Origin, which defeat DNS rebinding and requests from other
// origins' pages (another site, or another app on this machine), and, in
// the 2026-07-28 era, its routing headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-*), which must repeat its body. The Host
// and Origin rules are documented on [HTTPOptions.AllowedHosts] and
// [HTTPOptions.AllowedOrigins]; they run on every request, and allocate
// nothing for loopback hosts, names, and same-origin or listed Origins.

// paramHeader is a tool argument that a 2026-07-28 client mirrors into an
// HTTP header (SEP-2243): the input schema's property Arg carries
// "x-mcp-header": Header, and the request carries Mcp-Param-Header.
type paramHeader struct {
	Arg    string
	Header string
	// name is the header as errors name it, Mcp-Param-Header, and key
	// the same in net/http's canonical form, the key of http.Header.
	name, key string
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
		out = append(out, paramHeader{Arg: name, Header: h, name: "Mcp-Param-" + h, key: http.CanonicalHeaderKey("Mcp-Param-" + h)})
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
	if e == nil || len(e.params) == 0 || r.target.access == accessHidden || r.target.viaCall {
		return nil
	}
	var args map[string]json.RawMessage
	_ = json.Unmarshal(r.params.Arguments, &args) // not an object: validation reports it
	for _, ph := range e.params {
		name := ph.name
		raw, err := singleHeader(hd, ph.key, name)
		if err != nil {
			return err
		}
		_, sent := hd[ph.key] // an empty value mirrors ""
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

// The MCP headers, in net/http's canonical form: header reads index
// http.Header with them directly (see [headerValue]).
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
	if v, err := singleHeader(hd, headerProtocolVersion, headerProtocolVersion); err != nil || v != string(p.Meta.Version) {
		return orMismatch(err, "MCP-Protocol-Version", v, says(string(p.Meta.Version)))
	}
	if v, err := singleHeader(hd, headerMethod, headerMethod); err != nil || v != r.method {
		return orMismatch(err, "Mcp-Method", v, says(r.method))
	}
	if r.row == nil || r.row.target == targetNone {
		return nil
	}
	name := r.target.name
	if r.target.viaCall {
		name = s.discovery.call.tool.Name // the client named the call tool
	}
	raw, err := singleHeader(hd, headerName, headerName)
	if v, ok := decodeHeaderValue(raw); err != nil || !ok || v != name {
		return orMismatch(err, "Mcp-Name", raw, says(name))
	}
	return s.checkParamHeaders(r)
}

// singleHeader returns the value of the header key (in net/http's
// canonical form, as the constants above are), "" when it is absent, and
// an error naming it name when it is sent more than once.
func singleHeader(hd http.Header, key, name string) (string, error) {
	vs := hd[key]
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

// refusedBy returns the header a request is refused for, "Host" or
// "Origin", with the option that would allow it, or "" when it may be
// served. An Origin sent twice is refused: each copy could be read.
func (h *HTTPHandler) refusedBy(r *http.Request) (header, option string) {
	if !h.allowedHost(r.Host) {
		return "Host", "AllowedHosts"
	}
	switch origins := r.Header["Origin"]; {
	case len(origins) > 1:
		return "Origin", "AllowedOrigins"
	case len(origins) == 1 && !h.allowedOrigin(origins[0], r.Host):
		return "Origin", "AllowedOrigins"
	}
	return "", ""
}

// maxLoggedValue is how many bytes of a refused header the log shows:
// enough to recognize a client, not the megabyte of headers a request may
// carry, which every refused request would otherwise write to the log.
const maxLoggedValue = 256

// refusedValue is the value of the header a request was refused for, as
// the log shows it (cut to maxLoggedValue bytes): net/http keeps Host
// apart from the other headers.
func refusedValue(r *http.Request, header string) string {
	v := r.Host
	if header != "Host" {
		v = strings.Join(r.Header.Values(header), ", ")
	}
	if len(v) > maxLoggedValue {
		v = strings.ToValidUTF8(v[:maxLoggedValue], "") + "…"
	}
	return v
}

// allowedHost reports whether a request's Host header names this server:
// a loopback host, or one of AllowedHosts.
func (h *HTTPHandler) allowedHost(hostport string) bool {
	if hostport == "" {
		return true // HTTP/1.0 without Host: nothing to rebind
	}
	host, port := splitAuthority(hostport)
	if host == "" {
		return false
	}
	if isLoopback(host) {
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if a == "*" {
			return true
		}
		if ah, ap := splitAuthority(a); ah != "" && strings.EqualFold(ah, host) && (ap == "" || ap == port) {
			return true
		}
	}
	return false
}

// allowedOrigin reports whether a request's Origin header, if any, may
// call this server: the request's own origin (the Origin's host and port
// are the Host's), or one of AllowedOrigins.
func (h *HTTPHandler) allowedOrigin(origin, hostport string) bool {
	if origin == "" || slices.Contains(h.opts.AllowedOrigins, "*") {
		return true // no Origin: not sent by a browser page
	}
	scheme, host, port, ok := splitOrigin(origin)
	if !ok {
		return false // "null" (sandboxed or file: pages) and malformed values
	}
	for _, a := range h.opts.AllowedOrigins {
		if as, ah, ap, ok := splitOrigin(a); ok && strings.EqualFold(as, scheme) && strings.EqualFold(ah, host) && ap == port {
			return true
		}
	}
	rh, rp := splitAuthority(hostport)
	// The scheme is not compared: behind a proxy that terminates TLS the
	// request arrives over plain HTTP from an https page of the same host.
	return rh != "" && strings.EqualFold(rh, host) && (rp == port || rp == "" && port == defaultPort(scheme))
}

// isLoopback reports whether host (without port or brackets) is
// "localhost", in any case, or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if host == "" || !strings.Contains(host, ":") && (host[len(host)-1] < '0' || host[len(host)-1] > '9') {
		return false // not an IP address; ParseAddr's error would allocate
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// splitAuthority splits host[:port] (a Host header, or a URL's authority)
// into its host, without IPv6 brackets and without the trailing dot of a
// fully qualified name, and its port, empty if absent. Hosts are
// case-insensitive (RFC 3986 §3.2.2): compare them with strings.EqualFold.
func splitAuthority(s string) (host, port string) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", ""
		}
		host, rest := s[1:end], s[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return "", ""
			}
			port = rest[1:]
		}
		return host, port
	}
	host = s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		if strings.IndexByte(s[i+1:], ':') >= 0 {
			return "", "" // an IPv6 address must be bracketed
		}
		host, port = s[:i], s[i+1:]
	}
	return strings.TrimSuffix(host, "."), port
}

// splitOrigin splits a serialized origin, scheme "://" host [":" port]
// (RFC 6454), into its parts; an absent port is the scheme's default. A
// trailing "/" is tolerated, for allow-list entries written as URLs.
func splitOrigin(s string) (scheme, host, port string, ok bool) {
	scheme, auth, found := strings.Cut(s, "://")
	auth = strings.TrimSuffix(auth, "/")
	if !found || scheme == "" || strings.ContainsAny(auth, "/?#@") {
		return "", "", "", false
	}
	host, port = splitAuthority(auth)
	if port == "" {
		port = defaultPort(scheme)
	}
	return scheme, host, port, host != ""
}

// defaultPort is the port a URL of scheme means when it names none.
func defaultPort(scheme string) string {
	switch {
	case strings.EqualFold(scheme, "http"), strings.EqualFold(scheme, "ws"):
		return "80"
	case strings.EqualFold(scheme, "https"), strings.EqualFold(scheme, "wss"):
		return "443"
	}
	return ""
}

// headerValue returns the first value of the header key, which must be in
// net/http's canonical form (as the constants above are): unlike
// Header.Get, it does not canonicalize the key again on every request.
func headerValue(hd http.Header, key string) string {
	if vs := hd[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Refused reports whether h refuses r for its Host or Origin header (see
// [HTTPOptions.AllowedHosts] and [HTTPOptions.AllowedOrigins]), and if
// so answers it as it answers such a request to the MCP endpoint: 403
// with the same JSON-RPC error body, and the same warning in the
// server's log. A handler mounted beside the MCP endpoint, such as a
// page that calls it, starts with it to follow the endpoint's rules
// without repeating them:
//
//	if mcp.Refused(w, r) {
//		return
//	}
//
// It is safe for concurrent use.
func (h *HTTPHandler) Refused(w http.ResponseWriter, r *http.Request) bool {
	header, option := h.refusedBy(r)
	if header == "" {
		return false
	}
	h.srv.logger.WarnContext(r.Context(), "ferry: refused a request from an origin it does not serve",
		"header", header, "value", refusedValue(r, header),
		"hint", "if this client is yours, add it to HTTPOptions."+option)
	writeJSONError(w, http.StatusForbidden, CodeInvalidRequest, "forbidden: the request's "+header+" is not allowed")
	return true
}
