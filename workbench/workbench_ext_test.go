package workbench_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/workbench"
)

// TestHeadersOnEveryResponse checks that every answer of the workbench,
// the page, its config, the trace, refusals and errors alike, carries the
// strict policy and sets no cookie.
func TestHeadersOnEveryResponse(t *testing.T) {
	s := newSite(t, nil)
	reader := http.Header{"Authorization": {"Bearer " + readerKey}}
	tests := []struct {
		name, method, target string
		header               http.Header
		status               int
	}{
		{"page", "GET", "/ui/", nil, 200},
		{"page by name", "GET", "/ui/index.html", nil, 200},
		{"page HEAD", "HEAD", "/ui/", nil, 200},
		{"config", "GET", "/ui/config.json", nil, 200},
		{"redirect", "GET", "/ui", nil, 301},
		{"missing file", "GET", "/ui/nothing.js", nil, 404},
		{"POST", "POST", "/ui/", nil, 405},
		{"POST on the redirect", "POST", "/ui", nil, 405},
		{"trace without a key", "GET", "/ui/trace", nil, 401},
		{"trace with a key that may not read it", "GET", "/ui/trace", http.Header{"Authorization": {"Bearer " + otherKey}}, 403},
		{"trace", "GET", "/ui/trace?after=0", reader, 200},
		{"trace with a bad after", "GET", "/ui/trace?after=x", reader, 400},
		{"foreign Host", "GET", "/ui/", http.Header{"Host": {"evil.example"}}, 403},
		{"cross-origin", "GET", "/ui/config.json", http.Header{"Origin": {"http://evil.example"}}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequestWithContext(t.Context(), tt.method, "http://localhost"+tt.target, nil)
			for k, vs := range tt.header {
				r.Header[k] = vs
			}
			if h := tt.header.Get("Host"); h != "" {
				r.Host = h
			}
			w := httptest.NewRecorder()
			s.mux.ServeHTTP(w, r)
			res := w.Result()
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d (%s)", res.StatusCode, tt.status, w.Body)
			}
			want := map[string]string{
				"Content-Security-Policy": workbench.ContentSecurityPolicy,
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "no-referrer",
				"Cache-Control":           "no-store",
				"X-Frame-Options":         "DENY",
			}
			for k, v := range want {
				if got := res.Header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			if c := res.Header.Values("Set-Cookie"); len(c) > 0 {
				t.Errorf("Set-Cookie: %q", c)
			}
		})
	}
}

// TestPolicyIsStrict checks the policy's directives themselves: a change
// that loosened one (an inline script, another origin) fails here.
func TestPolicyIsStrict(t *testing.T) {
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:",
		"connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(workbench.ContentSecurityPolicy+";", d+";") {
			t.Errorf("the policy lacks %q: %s", d, workbench.ContentSecurityPolicy)
		}
	}
	for _, loose := range []string{"unsafe-inline", "unsafe-eval", "*", "http:", "https:"} {
		if strings.Contains(workbench.ContentSecurityPolicy, loose) {
			t.Errorf("the policy allows %q: %s", loose, workbench.ContentSecurityPolicy)
		}
	}
}

// TestRefusesLikeMCP checks that a request /mcp refuses for its Host or
// Origin is refused by the workbench with the same status and body, and
// that a request /mcp serves is served.
func TestRefusesLikeMCP(t *testing.T) {
	s := newSite(t, nil)
	tests := []struct {
		name    string
		host    string
		origins []string
		refused bool
	}{
		{"foreign host", "evil.example", nil, true},
		{"foreign host with port", "evil.example:8080", nil, true},
		{"rebinding to loopback's port", "attacker.example:80", nil, true},
		{"cross-origin", "localhost", []string{"http://evil.example"}, true},
		{"another loopback app", "localhost:8080", []string{"http://localhost:3000"}, true},
		{"null origin", "localhost", []string{"null"}, true},
		{"two origins", "localhost", []string{"http://localhost", "http://localhost"}, true},
		{"same origin", "localhost:8080", []string{"http://localhost:8080"}, false},
		{"loopback IP", "127.0.0.1:8080", nil, false},
		{"no Origin", "localhost", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := func(method, path string) (int, string) {
				r := httptest.NewRequestWithContext(t.Context(), method, "http://localhost"+path, strings.NewReader("{}"))
				r.Host = tt.host
				// With the key: /mcp asks for it before it looks at the
				// Host, the page never asks for it.
				r.Header.Set("Authorization", "Bearer "+readerKey)
				if tt.origins != nil {
					r.Header["Origin"] = tt.origins
				}
				w := httptest.NewRecorder()
				s.mux.ServeHTTP(w, r)
				return w.Code, w.Body.String()
			}
			mcpStatus, mcpBody := answer("POST", "/mcp")
			for _, path := range []string{"/ui/", "/ui/config.json", "/ui/trace", "/ui"} {
				status, body := answer("GET", path)
				if tt.refused {
					if mcpStatus != http.StatusForbidden {
						t.Fatalf("/mcp answered %d, want 403: the case is wrong", mcpStatus)
					}
					if status != mcpStatus || body != mcpBody {
						t.Errorf("GET %s: %d %s, want what /mcp answers: %d %s", path, status, body, mcpStatus, mcpBody)
					}
				} else if status == http.StatusForbidden {
					t.Errorf("GET %s: refused (%s), and /mcp serves it (%d)", path, body, mcpStatus)
				}
			}
		})
	}
}

// TestAllowedHostsAndOriginsAreTheEndpoints checks that the workbench
// serves the hosts and origins the MCP endpoint's options allow.
func TestAllowedHostsAndOriginsAreTheEndpoints(t *testing.T) {
	h := ferry.NewHTTPHandler(newServer(nil), &ferry.HTTPOptions{AllowedHosts: []string{"shop.example"},
		AllowedOrigins: []string{"https://app.example"}})
	wb := workbench.New(h, nil)
	r := httptest.NewRequestWithContext(t.Context(), "GET", "http://shop.example/config.json", nil)
	r.Header.Set("Origin", "https://app.example")
	w := httptest.NewRecorder()
	wb.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Errorf("an allowed host and origin: %d %s", w.Code, w.Body)
	}
}

// TestConfig checks config.json under prefixes: the endpoint is the
// absolute path given, the trace relative to the page, "" without one.
func TestConfig(t *testing.T) {
	h := ferry.NewHTTPHandler(newServer(nil), nil)
	tests := []struct {
		name, prefix string
		opts         *workbench.Options
		want         string
	}{
		{"defaults", "/ui", nil,
			`{"title":"MCP workbench","endpoint":"/mcp","trace":"","protocolVersion":"2026-07-28"}`},
		{"deep prefix", "/admin/tools/ui", &workbench.Options{Title: "orders", Endpoint: "/admin/mcp", Trace: workbench.NewTrace(nil)},
			`{"title":"orders","endpoint":"/admin/mcp","trace":"trace","protocolVersion":"2026-07-28"}`},
		{"prefix with a slash", "/ui/", &workbench.Options{Title: `<b>"x"</b>`},
			`{"title":"\u003cb\u003e\"x\"\u003c/b\u003e","endpoint":"/mcp","trace":"","protocolVersion":"2026-07-28"}`},
		{"root", "", nil,
			`{"title":"MCP workbench","endpoint":"/mcp","trace":"","protocolVersion":"2026-07-28"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mux := http.NewServeMux()
			workbench.New(h, tt.opts).Mount(mux, tt.prefix)
			base := strings.TrimSuffix(tt.prefix, "/")
			r := httptest.NewRequestWithContext(t.Context(), "GET", "http://localhost"+base+"/config.json", nil)
			w := httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			if w.Code != 200 || w.Body.String() != tt.want {
				t.Errorf("GET %s/config.json: %d %s\nwant %s", base, w.Code, w.Body, tt.want)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if base == "" {
				return
			}
			r = httptest.NewRequestWithContext(t.Context(), "GET", "http://localhost"+base, nil)
			w = httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			if loc := w.Header().Get("Location"); w.Code != http.StatusMovedPermanently || loc != base+"/" {
				t.Errorf("GET %s: %d to %q, want 301 to %s/", base, w.Code, loc, base)
			}
			r = httptest.NewRequestWithContext(t.Context(), "GET", "http://localhost"+base+"/", nil)
			w = httptest.NewRecorder()
			mux.ServeHTTP(w, r)
			if w.Code != 200 || !strings.Contains(w.Body.String(), "<html") || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("GET %s/: %d %q %.80s", base, w.Code, w.Header().Get("Content-Type"), w.Body)
			}
		})
	}
}

// TestPageLoadsItsFilesRelatively checks that the page names no file by
// an absolute path or another origin, so that it works under any prefix
// and offline, and that every file it names is served.
func TestPageLoadsItsFilesRelatively(t *testing.T) {
	s := newSite(t, nil)
	page := readAll(t, s.get(t, "GET", "/ui/", nil))
	for _, attr := range []string{`src="`, `href="`} {
		for rest := page; ; {
			_, after, ok := strings.Cut(rest, attr)
			if !ok {
				break
			}
			ref, _, _ := strings.Cut(after, `"`)
			rest = after
			if strings.HasPrefix(ref, "#") {
				continue // a link within the page
			}
			if strings.HasPrefix(ref, "/") || strings.Contains(ref, ":") {
				t.Errorf("the page loads %q: not relative", ref)
				continue
			}
			if res := s.get(t, "GET", "/ui/"+ref, nil); res.StatusCode != 200 {
				t.Errorf("the page loads %q, which answers %d", ref, res.StatusCode)
			}
		}
	}
}

// TestScriptsImportRelatively follows the page's module imports: each
// names a file by a relative URL ("./mcp.js"), and each is served as
// JavaScript.
func TestScriptsImportRelatively(t *testing.T) {
	s := newSite(t, nil)
	page := readAll(t, s.get(t, "GET", "/ui/", nil))
	queue, seen := []string{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`<script[^>]* src="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		queue = append(queue, m[1])
	}
	imports := regexp.MustCompile(`(?m)^\s*import\b[^"']*["']([^"']+)["']`)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		if !strings.HasPrefix(name, "./") && strings.Contains(name, "/") || strings.Contains(name, ":") {
			t.Errorf("a script imports %q: not a file beside the page", name)
			continue
		}
		res := s.get(t, "GET", "/ui/"+strings.TrimPrefix(name, "./"), nil)
		body := readAll(t, res)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("%s: %d %q", name, res.StatusCode, res.Header.Get("Content-Type"))
			continue
		}
		for _, m := range imports.FindAllStringSubmatch(body, -1) {
			queue = append(queue, m[1])
		}
	}
}

// TestContentTypes checks the media type of each embedded file kind.
func TestContentTypes(t *testing.T) {
	s := newSite(t, nil)
	res := s.get(t, "HEAD", "/ui/", nil)
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("index: %q", ct)
	}
	if body := readAll(t, res); body != "" {
		t.Errorf("HEAD has a body: %.40q", body)
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(readAll(t, s.get(t, "GET", "/ui/config.json", nil))), &cfg); err != nil {
		t.Error(err)
	}
}

// TestNewPanicsOnProgrammingErrors checks the documented panics.
func TestNewPanicsOnProgrammingErrors(t *testing.T) {
	h := ferry.NewHTTPHandler(newServer(nil), nil)
	tests := []struct {
		name string
		call func()
	}{
		{"no handler", func() { workbench.New(nil, nil) }},
		{"relative endpoint", func() { workbench.New(h, &workbench.Options{Endpoint: "mcp"}) }},
		{"another origin", func() { workbench.New(h, &workbench.Options{Endpoint: "//evil.example/mcp"}) }},
		{"URL", func() { workbench.New(h, &workbench.Options{Endpoint: "http://evil.example/mcp"}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.call()
		})
	}
}
