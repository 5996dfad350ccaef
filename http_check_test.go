package ferry

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
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
