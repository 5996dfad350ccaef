package ferry

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestHostAndOriginChecks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		allowedHosts   []string
		allowedOrigins []string
		host, origin   string
		want           bool
	}{
		// Host: loopback names and IPs, case-insensitive, trailing dot ignored.
		{name: "loopback name", host: "localhost:8080", want: true},
		{name: "loopback name in upper case", host: "LOCALHOST:8080", want: true},
		{name: "loopback name with a trailing dot", host: "localhost.:8080", want: true},
		{name: "loopback name without port", host: "localhost", want: true},
		{name: "loopback IPv4", host: "127.0.0.1:8080", want: true},
		{name: "loopback IPv6", host: "[::1]:8080", want: true},
		{name: "loopback IPv6 without port", host: "[::1]", want: true},
		{name: "IPv4-mapped loopback", host: "[::ffff:127.0.0.1]:8080", want: true},
		{name: "no Host (HTTP/1.0)", host: "", want: true},
		{name: "a rebound name", host: "evil.example.com:8080", want: false},
		{name: "a name ending in localhost", host: "evil-localhost:8080", want: false},
		{name: "a name under localhost's parent", host: "localhost.evil.example.com", want: false},
		{name: "a public IP", host: "203.0.113.7:8080", want: false},
		{name: "an unbracketed IPv6 address", host: "::1:8080", want: false},
		{name: "a port without host", host: ":8080", want: false},
		{name: "allowed host, any port", allowedHosts: []string{"mcp.example.com"}, host: "mcp.example.com:8443", want: true},
		{name: "allowed host in another case, with a trailing dot", allowedHosts: []string{"MCP.example.com"}, host: "mcp.EXAMPLE.com.", want: true},
		{name: "allowed host:port, that port", allowedHosts: []string{"mcp.example.com:8443"}, host: "mcp.example.com:8443", want: true},
		{name: "allowed host:port, another port", allowedHosts: []string{"mcp.example.com:8443"}, host: "mcp.example.com:9000", want: false},
		{name: "any host", allowedHosts: []string{"*"}, host: "evil.example.com", want: true},

		// Origin: the request's own, or listed; other loopback ports are other apps.
		{name: "no Origin", host: "localhost:8080", want: true},
		{name: "same origin", host: "localhost:8080", origin: "http://localhost:8080", want: true},
		{name: "same origin, another case and a trailing dot", host: "localhost:8080", origin: "http://LocalHost.:8080", want: true},
		{name: "same origin, default port implied by the Origin", host: "localhost:80", origin: "http://localhost", want: true},
		{name: "same origin, default port implied by the Host", host: "localhost", origin: "http://localhost:80", want: true},
		{name: "same host behind a TLS proxy", allowedHosts: []string{"app.example.com"}, host: "app.example.com", origin: "https://app.example.com", want: true},
		{name: "loopback Origin on another port", host: "localhost:8080", origin: "http://localhost:3000", want: false},
		{name: "loopback Origin under another loopback name", host: "127.0.0.1:8080", origin: "http://localhost:8080", want: false},
		{name: "a non-default port against a Host without port", host: "localhost", origin: "http://localhost:8080", want: false},
		{name: "another site", host: "localhost:8080", origin: "https://evil.example.com", want: false},
		{name: "a null Origin", host: "localhost:8080", origin: "null", want: false},
		{name: "an Origin with a path", host: "localhost:8080", origin: "http://localhost:8080/x", want: false},
		{name: "an Origin with credentials", host: "localhost:8080", origin: "http://evil@localhost:8080", want: false},
		{name: "a listed Origin", allowedOrigins: []string{"https://app.example.com"}, host: "localhost:8080", origin: "https://app.example.com", want: true},
		{name: "a listed Origin in another case, with its default port", allowedOrigins: []string{"HTTPS://App.Example.com/"}, host: "localhost:8080", origin: "https://app.example.com:443", want: true},
		{name: "a listed loopback port", allowedOrigins: []string{"http://localhost:3000"}, host: "localhost:8080", origin: "http://localhost:3000", want: true},
		{name: "a listed Origin, another scheme", allowedOrigins: []string{"https://app.example.com"}, host: "localhost:8080", origin: "http://app.example.com", want: false},
		{name: "a listed Origin, another port", allowedOrigins: []string{"https://app.example.com"}, host: "localhost:8080", origin: "https://app.example.com:8443", want: false},
		{name: "any Origin", allowedOrigins: []string{"*"}, host: "localhost:8080", origin: "null", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := NewHTTPHandler(NewServer("t", "1", nil), &HTTPOptions{AllowedHosts: tt.allowedHosts, AllowedOrigins: tt.allowedOrigins})
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Host = tt.host
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if got := w.Code != http.StatusForbidden; got != tt.want {
				t.Errorf("Host %q, Origin %q: status %d, want allowed %v", tt.host, tt.origin, w.Code, tt.want)
			}
		})
	}
}

func TestHostAndOriginChecksDoNotAllocate(t *testing.T) {
	h := NewHTTPHandler(NewServer("t", "1", nil), &HTTPOptions{AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"https://app.example.com"}})
	allocs := testing.AllocsPerRun(100, func() {
		_ = h.allowedHost("MCP.example.com.:8443") && h.allowedOrigin("https://app.example.com", "mcp.example.com:8443")
		_ = h.allowedHost("localhost:8080") && h.allowedOrigin("http://localhost:8080", "localhost:8080")
	})
	if allocs != 0 {
		t.Errorf("the checks allocate %v times, want 0", allocs)
	}
}

// The log shows a refused header cut short: a request cannot make each
// refusal write its whole headers to the log.
func TestRefusedValueIsCut(t *testing.T) {
	req := httptest.NewRequest("POST", "/", nil)
	req.Header.Set("Origin", "https://"+strings.Repeat("é", 1000))
	v := refusedValue(req, "Origin")
	if len(v) > maxLoggedValue+len("…") || !strings.HasPrefix(v, "https://é") || !strings.HasSuffix(v, "…") || !utf8.ValidString(v) {
		t.Errorf("logged value %d bytes: %q", len(v), v)
	}
	req.Host = "evil.example"
	if v := refusedValue(req, "Host"); v != "evil.example" {
		t.Errorf("Host logged as %q", v)
	}
}
func TestHeaderMatches(t *testing.T) {
	tests := []struct {
		header, arg string
		want        bool
	}{
		{"eu-west", `"eu-west"`, true},
		{"eu-west", `"us-east"`, false},
		{"3", `3`, true},
		{"3.0", `3`, true},
		{"three", `3`, false},
		{"true", `true`, true},
		{"True", `true`, false},
		{"[1]", `[1]`, false},
	}
	for _, tt := range tests {
		if got := headerMatches(tt.header, json.RawMessage(tt.arg)); got != tt.want {
			t.Errorf("headerMatches(%q, %s) = %v, want %v", tt.header, tt.arg, got, tt.want)
		}
	}
}

func TestParamHeadersFromTheWireSchema(t *testing.T) {
	tests := []struct {
		name       string
		properties string
		want       []paramHeader
		problem    string
	}{
		{"none", `"region":{"type":"string"}`, nil, ""},
		{"two", `"region":{"type":"string","x-mcp-header":"Region"},"note":{"type":"string"},"priority":{"type":"integer","x-mcp-header":"Priority"}`,
			[]paramHeader{{Arg: "priority", Header: "Priority"}, {Arg: "region", Header: "Region"}}, ""},
		{"not a token", `"region":{"type":"string","x-mcp-header":"My Region"}`, nil, "is not a valid HTTP header name"},
		{"twice", `"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}`,
			[]paramHeader{{Arg: "a", Header: "Region"}}, "both use x-mcp-header"},
		{"not primitive", `"tags":{"type":"array","x-mcp-header":"Tags"}`, nil, "needs a string, number, integer or boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wire := []byte(`{"name":"route","inputSchema":{"type":"object","properties":{` + tt.properties + `}}}`)
			got, problems := paramHeaders(wire)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreUnexported(paramHeader{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.problem == "" && len(problems) > 0 || tt.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.problem)) {
				t.Errorf("problems = %q; want one saying %q", problems, tt.problem)
			}
		})
	}
}

func TestCheckReportsABadParamHeader(t *testing.T) {
	s := NewServer("s", "1", nil)
	s.AddTool(Tool{Name: "route", Description: "Routes.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"My Region"}}}`)},
		func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `tool "route": property "region": x-mcp-header "My Region" is not a valid HTTP header name`) {
		t.Errorf("Check() = %v", err)
	}
}

// Numbers in Mcp-Param headers match by exact value, whatever their
// spelling, and never by float64 rounding.
func TestHeaderMatchesNumbersExactly(t *testing.T) {
	tests := []struct {
		header, arg string
		want        bool
	}{
		{"8", "8", true},
		{"8", "8.0", true},
		{"80e-1", "8", true},
		{"-1.50", "-15e-1", true},
		{"0", "-0.0", true},
		{"9007199254740993", "9007199254740993", true},
		{"9007199254740992", "9007199254740993", false},
		{"0x1p3", "8", false},
		{"Inf", "1e999999", false},
		{"+8", "8", false},
		{"1e999999999", "1e999999999", true},
		{"1e99999999999999999999", "1e99999999999999999999", false},
		{"eu", `"eu"`, true},
		{"true", "true", true},
		{"1", "true", false},
	}
	for _, tt := range tests {
		if got := headerMatches(tt.header, json.RawMessage(tt.arg)); got != tt.want {
			t.Errorf("headerMatches(%q, %s) = %v, want %v", tt.header, tt.arg, got, tt.want)
		}
	}
}

// A routing header sent twice is refused: an intermediary reading the last
// value would route or authorize on another value than the server acts on.
func TestRoutingHeadersSentTwiceAreRefused(t *testing.T) {
	s := NewServer("s", "1", nil)
	s.AddTool(Tool{Name: "pay", Description: "Pays.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	p := &wireParams{Name: "pay", Arguments: json.RawMessage(`{"region":"eu"}`)}
	p.Meta.Version = Version20260728
	base := http.Header{"Mcp-Protocol-Version": {Version20260728}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"pay"},
		"Mcp-Param-Region": {"eu"}}
	check := func(hd http.Header) error {
		r := newRequest(context.Background(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: "tools/call"}, p, peer{header: hd})
		r.beModern()
		s.resolve(r)
		return s.checkModernHeaders(r)
	}
	if err := check(base); err != nil {
		t.Fatalf("headers sent once: %v", err)
	}
	for _, name := range []string{"Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Param-Region"} {
		hd := base.Clone()
		hd[name] = append(hd[name], "other")
		err := check(hd)
		if CodeOf(err) != CodeHeaderMismatch || !strings.Contains(err.Error(), name+" is sent 2 times") {
			t.Errorf("%s sent twice: %v", name, err)
		}
	}
}

// The Mcp-Param check asks Visible about the tool as the call will, with
// the CallInfo of the request: a Visible that reads it cannot let a
// mismatched header through. An empty value mirrors an empty string.
func TestParamHeadersCheckedAsTheCallSeesTheTool(t *testing.T) {
	s := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler), Visible: func(ctx context.Context, tool ToolInfo) bool {
		ci, ok := CallInfoFromContext(ctx)
		return ok && ci.Tool == tool.Name && ci.Header.Get("X-Tenant") == "a"
	}})
	s.AddTool(Tool{Name: "pay", Description: "Pays.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(context.Context, *CallToolRequest) (*ToolResult, error) {
			return &ToolResult{Content: []Content{Text("paid")}}, nil
		})
	h := NewHTTPHandler(s, nil)
	call := func(region, header string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"region":` + strconv.Quote(region) + `},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req := httptest.NewRequest("POST", "/", strings.NewReader(body))
		req.Host = "localhost"
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "pay")
		req.Header.Set("X-Tenant", "a")
		req.Header["Mcp-Param-Region"] = []string{header}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Body.String()
	}
	if got := call("eu", "us"); !strings.Contains(got, `"code":-32020`) {
		t.Errorf("a mismatched header got through: %s", got)
	}
	if got := call("", ""); !strings.Contains(got, "paid") {
		t.Errorf("an empty argument with its empty header was refused: %s", got)
	}
}

// A tool's Mcp-Param headers are read by their canonical key, as net/http
// keeps them, and named in errors as the schema writes them.
func TestParamHeaderKeysAreCanonical(t *testing.T) {
	got, problems := paramHeaders([]byte(`{"inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"region-CODE"}}}}`))
	if len(problems) != 0 || len(got) != 1 {
		t.Fatalf("paramHeaders = %+v, %q", got, problems)
	}
	if got[0].key != "Mcp-Param-Region-Code" || got[0].name != "Mcp-Param-region-CODE" {
		t.Errorf("key %q, name %q; want Mcp-Param-Region-Code and Mcp-Param-region-CODE", got[0].key, got[0].name)
	}
	hd := http.Header{}
	hd.Set("mcp-param-region-code", "eu")
	if v, err := singleHeader(hd, got[0].key, got[0].name); v != "eu" || err != nil {
		t.Errorf("singleHeader = %q, %v; want eu", v, err)
	}
}
