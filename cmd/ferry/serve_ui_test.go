package main

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/workbench"
)

// uiGet GETs path of the server s started, with the headers given as
// name, value pairs, and returns the status and body; the workbench's
// headers are checked on every answer.
func uiGet(t *testing.T, s *served, path string, headers ...string) (int, string) {
	t.Helper()
	base := strings.TrimSuffix(s.url, "/mcp")
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if csp := resp.Header.Get("Content-Security-Policy"); csp != workbench.ContentSecurityPolicy {
		t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
	}
	if c := resp.Header.Values("Set-Cookie"); len(c) > 0 {
		t.Errorf("GET %s: Set-Cookie %q", path, c)
	}
	return resp.StatusCode, string(body)
}

// traceNames reads the trace and returns "caller:tool" of each event.
func traceNames(t *testing.T, body string) []string {
	t.Helper()
	var p struct {
		Events []struct {
			Name, Caller, Outcome string
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("the trace is not JSON: %v: %s", err, body)
	}
	var out []string
	for _, e := range p.Events {
		out = append(out, e.Caller+":"+e.Name+":"+e.Outcome)
	}
	return out
}

// ferry serve -ui without authentication, on loopback: the page, its
// config, and a trace every caller reads, of every client's calls.
func TestServeUINoAuth(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-ui"})
	base := strings.TrimSuffix(s.url, "/mcp")
	if want := "ferry serve: workbench: " + base + "/ui/ (no credential: /mcp takes none; its trace: every caller (no authentication, loopback only))\n"; !contains(s.stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, s.stderr.String())
	}
	if status, body := uiGet(t, s, "/ui/"); status != 200 || !contains(body, "<html") {
		t.Errorf("GET /ui/: %d %.80s", status, body)
	}
	if status, body := uiGet(t, s, "/ui/config.json"); status != 200 ||
		body != `{"title":"ferry serve","endpoint":"/mcp","trace":"trace","catalog":"catalog.json","protocolVersion":"2026-07-28"}` {
		t.Errorf("GET /ui/config.json: %d %s", status, body)
	}
	s.call(t, "list_products", map[string]any{"top": 1})
	s.call(t, "get_product", map[string]any{"id": 999})
	status, body := uiGet(t, s, "/ui/trace?after=0")
	if got := strings.Join(traceNames(t, body), " "); status != 200 || got != ":list_products:ok :get_product:refused" {
		t.Errorf("GET /ui/trace: %d %q", status, got)
	}
	if status, body := uiGet(t, s, "/ui/", "Host", "evil.example"); status != http.StatusForbidden {
		t.Errorf("a foreign Host: %d %.80s", status, body)
	}
}

// ferry serve -ui with API keys: the page needs no key, the trace the
// same key /mcp takes.
func TestServeUIAPIKey(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	const key = "ui-test-key-0123456789"
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-ui", "-api-key-env", "KEYS"}, "KEYS", key)
	if !contains(s.stderr.String(), "its trace: API-key callers (tokens read none") {
		t.Errorf("stderr does not say who reads the trace:\n%s", s.stderr.String())
	}
	if status, _ := uiGet(t, s, "/ui/"); status != 200 {
		t.Errorf("GET /ui/ without a key: %d", status)
	}
	s.call(t, "list_products", map[string]any{"top": 1}, "X-API-Key", key)
	if status, body := uiGet(t, s, "/ui/trace"); status != http.StatusUnauthorized || contains(body, "list_products") {
		t.Errorf("the trace without a key: %d %s", status, body)
	}
	if status, _ := uiGet(t, s, "/ui/trace", "Authorization", "Bearer not-the-key-0123456789"); status != http.StatusUnauthorized {
		t.Errorf("the trace with a wrong key: %d", status)
	}
	status, body := uiGet(t, s, "/ui/trace", "Authorization", "Bearer "+key)
	if got := strings.Join(traceNames(t, body), " "); status != 200 || got != "api-key-1:list_products:ok" {
		t.Errorf("the trace with the key: %d %q", status, got)
	}
}

// ferry serve -ui with JWTs: without -ui-trace-scope there is no trace;
// with it, a token that holds the scope reads it and one that does not
// gets 403.
func TestServeUIJWT(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	keys := newJWKSServer(t)
	const iss = "https://login.example.com"
	token := func(t *testing.T, aud, scope string) string {
		now := time.Now()
		tok, err := jwt.Signed(keys.signer).Claims(jwt.Claims{Issuer: iss, Subject: "agent-7", Audience: jwt.Audience{aud},
			IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), Expiry: jwt.NewNumericDate(now.Add(time.Hour))}).
			Claims(map[string]any{"scope": scope}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	t.Run("without a scope", func(t *testing.T) {
		s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-ui", "-jwt-jwks", keys.url, "-jwt-issuer", iss})
		if !contains(s.stderr.String(), "its trace: off: give -ui-trace-scope SCOPE") {
			t.Errorf("stderr does not say the trace is off:\n%s", s.stderr.String())
		}
		if _, body := uiGet(t, s, "/ui/config.json"); !contains(body, `"trace":""`) {
			t.Errorf("config.json names a trace: %s", body)
		}
		if status, _ := uiGet(t, s, "/ui/trace", "Authorization", "Bearer "+token(t, s.url, "trace.read")); status != http.StatusNotFound {
			t.Errorf("the trace that is off: %d", status)
		}
	})
	t.Run("with a scope", func(t *testing.T) {
		s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-ui", "-jwt-jwks", keys.url, "-jwt-issuer", iss, "-ui-trace-scope", "trace.read"})
		s.call(t, "list_products", map[string]any{"top": 1}, "Authorization", "Bearer "+token(t, s.url, "other"))
		if status, _ := uiGet(t, s, "/ui/trace"); status != http.StatusUnauthorized {
			t.Errorf("the trace without a token: %d", status)
		}
		if status, body := uiGet(t, s, "/ui/trace", "Authorization", "Bearer "+token(t, s.url, "other")); status != http.StatusForbidden {
			t.Errorf("the trace with a token without the scope: %d %s", status, body)
		}
		status, body := uiGet(t, s, "/ui/trace", "Authorization", "Bearer "+token(t, s.url, "other trace.read"))
		if got := strings.Join(traceNames(t, body), " "); status != 200 || got != "agent-7:list_products:ok" {
			t.Errorf("the trace with the scope: %d %q", status, got)
		}
	})
}

// The -ui flags that do not go together are refused before anything
// starts.
func TestServeUIFlags(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-ui-trace-scope", "x"}, "-ui-trace-scope needs -ui"},
		{[]string{"-ui", "-ui-trace-scope", "x"}, "-ui-trace-scope names the scope a JWT needs: it needs -jwt-jwks"},
		{[]string{"-ui", "-stdio"}, "-ui serves a page over HTTP: it does not go with -stdio"},
	} {
		code, stderr := failServe(t, append([]string{"-db", d.url}, tt.args...))
		if code != exitUsage || !contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %s; want %d and %q", tt.args, code, stderr, exitUsage, tt.want)
		}
	}
}

// tracePolicy: who reads the trace in each authentication mode.
func TestServeTracePolicy(t *testing.T) {
	srv := ferry.NewServer("t", "1", nil)
	key := &ferry.Principal{Subject: "api-key-1", Issuer: "api-key"}
	scoped := &ferry.Principal{Subject: "a", Issuer: "https://login.example.com", Scopes: []string{"trace.read"}}
	plain := &ferry.Principal{Subject: "b", Issuer: "https://login.example.com", Scopes: []string{"other"}}
	tests := []struct {
		name string
		cfg  serveConfig
		// who may read, of: anonymous, key, scoped, plain; "" when the trace is off
		want string
	}{
		{"loopback, no auth", serveConfig{httpAddr: "127.0.0.1:8080"}, "anonymous key scoped plain"},
		{"-insecure", serveConfig{httpAddr: "0.0.0.0:8080", insecure: true}, ""},
		{"api keys", serveConfig{httpAddr: "0.0.0.0:8080", apiKeyEnv: "K"}, "key"},
		{"jwt without a scope", serveConfig{httpAddr: "0.0.0.0:8080", jwks: "https://x/jwks"}, ""},
		{"jwt with a scope", serveConfig{httpAddr: "0.0.0.0:8080", jwks: "https://x/jwks", ui: uiConfig{traceScope: "trace.read"}}, "scoped"},
		{"both without a scope", serveConfig{httpAddr: "0.0.0.0:8080", jwks: "https://x/jwks", apiKeyEnv: "K"}, "key"},
		{"both with a scope", serveConfig{httpAddr: "0.0.0.0:8080", jwks: "https://x/jwks", apiKeyEnv: "K", ui: uiConfig{traceScope: "trace.read"}}, "key scoped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{cfg: &tt.cfg}
			may, why := s.tracePolicy(srv)
			var got []string
			for name, p := range map[string]*ferry.Principal{"anonymous": nil, "key": key, "scoped": scoped, "plain": plain} {
				if may != nil && may(p) {
					got = append(got, name)
				}
			}
			if may == nil && !strings.HasPrefix(why, "off: ") {
				t.Errorf("the trace is off, and the line says %q", why)
			}
			slices.Sort(got)
			want := strings.Fields(tt.want)
			slices.Sort(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("readers %v, want %v (%s)", got, want, why)
			}
		})
	}
}
