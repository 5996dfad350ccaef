package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// runFerryIn runs ferry like runFerry with stdin as its standard input.
func runFerryIn(t *testing.T, stdin string, args []string, envPairs ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	vars := map[string]string{}
	for i := 0; i+1 < len(envPairs); i += 2 {
		vars[envPairs[i]] = envPairs[i+1]
	}
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}
	code = run(t.Context(), args, e)
	return code, out.String(), errOut.String()
}

// decodeStdout decodes the one JSON document of stdout into v, and fails
// unless it is indented.
func decodeStdout(t *testing.T, stdout string, v any) {
	t.Helper()
	if !strings.HasPrefix(stdout, "{\n  \"") || !strings.HasSuffix(stdout, "}\n") {
		t.Errorf("stdout is not one indented JSON object: %q", stdout)
	}
	if err := decodeJSON([]byte(stdout), v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
}

// eras names the targets every command is checked against: the HTTP
// server in each era, and the stdio server.
func eras(t *testing.T, url string) map[string][]string {
	return map[string][]string{
		"modern":     {url},
		"legacy":     {"-protocol", "2025-11-25", url},
		"2025-06-18": {"-protocol=2025-06-18", url},
		"stdio":      stdioCommand(t),
	}
}

// withTarget puts the target into a command line: a URL right after the
// flags, a stdio command at the end.
func withTarget(cmd string, target []string, rest ...string) []string {
	if target[0] == "--" {
		return append(append([]string{cmd}, rest...), target...)
	}
	args := append([]string{cmd}, target...)
	return append(args, rest...)
}

// An unknown resource or tool is the server's error: exit 3, one line.
func TestServerErrors(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for _, args := range [][]string{
		{"read", url, "shop://nothing"},
		{"call", url, "no_such_tool"},
		{"read", "-protocol", "2025-11-25", url, "shop://nothing"},
		{"call", "-protocol", "2025-11-25", url, "no_such_tool"},
	} {
		code, stdout, stderr := runFerry(t, args)
		if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "the server answered error -32") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 3 and one line", args, code, stdout, stderr)
		}
	}
}

// -protocol forces an era; the default is the modern one, and falls back
// to legacy against a server that speaks only legacy versions.
func TestProtocolChoice(t *testing.T) {
	modern := httpServer(t, shopServer(nil), nil)
	var seen atomic.Value
	legacyOnly := httpServer(t, shopServer(&ferry.ServerOptions{ProtocolVersions: []string{"2025-11-25", "2025-06-18"}}), func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") != "" { // a request of the session initialize opened
				seen.Store(r.Header.Get("Mcp-Protocol-Version"))
			}
			next.ServeHTTP(w, r)
		})
	})
	tests := []struct {
		name, url, protocol string
		want                int
	}{
		{"default is modern", modern, "", exitOK},
		{"forced modern", modern, "2026-07-28", exitOK},
		{"forced legacy", modern, "2025-03-26", exitOK},
		{"fallback to legacy", legacyOnly, "", exitOK},
		{"forced legacy on legacy", legacyOnly, "2025-06-18", exitOK},
		{"forced modern on legacy", legacyOnly, "2026-07-28", exitProtocol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, []string{"call", "-protocol", tt.protocol, tt.url, "whoami"})
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.want, stderr)
			}
			if tt.want == exitOK && !strings.Contains(stdout, "anonymous") {
				t.Errorf("stdout %q", stdout)
			}
		})
	}
	if code, _, stderr := runFerry(t, []string{"tools", legacyOnly}); code != exitOK || seen.Load() != "2025-11-25" {
		t.Errorf("fallback: exit %d, stderr %q; the session spoke %v, want 2025-11-25", code, stderr, seen.Load())
	}
	if code, _, stderr := runFerry(t, []string{"tools", "-timeout", "0s", modern}); code != exitUsage || stderr != "ferry: -timeout 0s: give a duration above 0, such as 30s\n" {
		t.Errorf("-timeout 0s: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr := runFerry(t, []string{"tools", "-protocol", "2024-01-01", modern})
	if code != exitUsage || !strings.HasPrefix(stderr, `ferry: -protocol "2024-01-01" is not a version ferry speaks`) {
		t.Errorf("unknown version: exit %d, stderr %q", code, stderr)
	}
}

// The protocol the client spoke is the one asked for: the server sees it
// on every request.
func TestProtocolReachesServer(t *testing.T) {
	var seen atomic.Value
	url := httpServer(t, shopServer(nil), func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
				seen.Store(v)
			}
			next.ServeHTTP(w, r)
		})
	})
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		if code, _, stderr := runFerry(t, []string{"tools", "-protocol", v, url}); code != exitOK {
			t.Fatalf("%s: exit %d, %s", v, code, stderr)
		}
		if got := seen.Load(); got != v {
			t.Errorf("-protocol %s: the server saw %v", v, got)
		}
	}
}

// Credentials reach the server from -header, -header-env and FERRY_TOKEN;
// without them the server refuses with 401, exit 3 and a hint.
func TestCredentials(t *testing.T) {
	url := httpServer(t, shopServer(nil), apiKeyMiddleware(t, "k-secret-7"))
	tests := []struct {
		name string
		args []string
		env  []string
	}{
		{"-header bearer", []string{"-header", "Authorization: Bearer k-secret-7"}, nil},
		{"-header api key", []string{"-header", "X-API-Key:k-secret-7"}, nil},
		{"-header-env", []string{"-header-env", "SHOP_KEY"}, []string{"SHOP_KEY", "X-Api-Key: k-secret-7"}},
		{"FERRY_TOKEN", nil, []string{"FERRY_TOKEN", "k-secret-7"}},
		{"--header, GNU style", []string{"--header=X-API-Key: k-secret-7", "--protocol", "2025-11-25"}, nil},
		{"-header wins over FERRY_TOKEN", []string{"-header", "Authorization: Bearer k-secret-7"}, []string{"FERRY_TOKEN", "wrong"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"call"}, tt.args...), url, "whoami")
			code, stdout, stderr := runFerry(t, args, tt.env...)
			if code != exitOK || !strings.Contains(stdout, "ci-job") {
				t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
	code, stdout, stderr := runFerry(t, []string{"call", url, "whoami"})
	if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 ||
		!strings.Contains(stderr, "401") || !strings.HasSuffix(stderr, "; the server needs credentials: pass them with -header, -header-env or FERRY_TOKEN\n") {
		t.Errorf("no credential: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runFerry(t, []string{"call", url, "whoami"}, "FERRY_TOKEN", "k-wrong")
	if code != exitProtocol || !strings.HasSuffix(stderr, "; the server refused the credentials sent (-header, -header-env, FERRY_TOKEN): check them\n") {
		t.Errorf("wrong credential: exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, "k-secret-7") {
		t.Errorf("stderr shows the secret: %q", stderr)
	}
}

// Malformed headers are usage errors that do not show the value.
func TestBadHeaders(t *testing.T) {
	tests := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"-header", "Authorization Bearer s3cr3t"}, nil, `ferry: a -header value (it has no ':') is not a header line "Name: value"`},
		{[]string{"-header", "X Key: s3cr3t"}, nil, `ferry: -header "X Key: ..." is not a header line`},
		{[]string{"-header-env", "NOPE"}, nil, "ferry: -header-env NOPE: the environment variable NOPE is empty or not set"},
		{[]string{"-header-env", "K"}, []string{"K", "s3cr3t"}, "ferry: the environment variable K is not a header line"},
		{nil, []string{"FERRY_TOKEN", "s3cr3t\nX-Evil: 1"}, "ferry: FERRY_TOKEN holds a line break"},
	}
	for _, tt := range tests {
		args := append(append([]string{"tools"}, tt.args...), "http://127.0.0.1:1/mcp")
		code, _, stderr := runFerry(t, args, tt.env...)
		if code != exitUsage || !strings.HasPrefix(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
		if strings.Contains(stderr, "s3cr3t") {
			t.Errorf("%q: stderr shows the secret: %q", tt.args, stderr)
		}
	}
}

// A URL nothing listens on: exit 3, one line with a hint, quickly.
func TestDeadURL(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	for _, cmd := range [][]string{{"tools", url}, {"call", url, "x", "{}"}, {"lint", url}, {"read", url, "shop://x"}} {
		code, stdout, stderr := runFerry(t, cmd)
		if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.HasPrefix(stderr, "ferry: connecting to "+url+": ") || !strings.Contains(stderr, "is the server running") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}

// A stdio command that does not exist, or exits at once: exit 3, one line.
func TestDeadCommand(t *testing.T) {
	for _, cmd := range [][]string{{"--", "/nonexistent/mcp-server"}, {"--", "true"}} {
		code, stdout, stderr := runFerry(t, append([]string{"tools"}, cmd...))
		if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "ferry: connecting to "+cmd[1]+": ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}

// A server that does not answer in time: exit 3 after -timeout, with the
// progress line printed after a second.
func TestTimeoutAndProgress(t *testing.T) {
	release := make(chan struct{})
	url := httpServer(t, shopServer(nil), func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		})
	})
	defer close(release)
	start := time.Now()
	code, stdout, stderr := runFerry(t, []string{"tools", "-timeout", "1500ms", url})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v with -timeout 1.5s", d)
	}
	want := "ferry: connecting to " + url + " ...\nferry: connecting to " + url + ": no answer within 1.5s; raise -timeout if the server is slow\n"
	if code != exitProtocol || stdout != "" || stderr != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3 and %q", code, stdout, stderr, want)
	}
	code, _, stderr = runFerry(t, []string{"tools", "-quiet", "-timeout", "1200ms", url})
	if code != exitProtocol || strings.Contains(stderr, "...") {
		t.Errorf("-quiet: exit %d, stderr %q", code, stderr)
	}
}

// Usage errors exit 2 with one line, then the usage.
func TestClientUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools"}, "ferry: tools: no TARGET: give a server's http(s):// URL, or \"--\" and a stdio server's command"},
		{[]string{"tools", "localhost:8080"}, `ferry: tools: TARGET "localhost:8080" is not an http:// or https:// URL; for a stdio server, put its command after "--"`},
		{[]string{"tools", "--"}, `ferry: tools: "--" must be followed by the stdio server's command`},
		{[]string{"tools", "http://x/mcp", "extra"}, `ferry: tools: unexpected argument "extra" after TARGET`},
		{[]string{"call", "http://x/mcp"}, "ferry: call: want TOOL and at most one JSON argument after TARGET, have 0 arguments"},
		{[]string{"read", "http://x/mcp"}, "ferry: read: want one URI after TARGET, have 0 arguments"},
		{[]string{"prompts", "-nope", "http://x/mcp"}, "ferry: flag provided but not defined: -nope"},
		{[]string{"lint", "-timeout", "soon", "http://x/mcp"}, `ferry: invalid value "soon" for flag -timeout`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runFerry(t, tt.args)
		first, rest, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || stdout != "" || !strings.HasPrefix(first, tt.want) || !strings.HasPrefix(rest, "usage: ferry "+tt.args[0]) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, %q and the usage", tt.args, code, stdout, stderr, tt.want)
		}
	}
}

// The help of every client command explains TARGET, credentials and exit
// codes; lint's lists every rule.
func TestClientHelp(t *testing.T) {
	for _, c := range []string{"tools", "call", "prompts", "prompt", "resources", "read", "lint"} {
		_, stdout, _ := runFerry(t, []string{c, "-h"})
		for _, want := range []string{"usage: ferry " + c, "-- COMMAND", "FERRY_TOKEN", "-header-env", "-protocol", "-timeout", "Exit codes"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("ferry %s -h lacks %q", c, want)
			}
		}
	}
	_, stdout, _ := runFerry(t, []string{"help", "lint"})
	for _, r := range lintRules {
		if !strings.Contains(stdout, "  "+r.id+" ") {
			t.Errorf("lint's help lacks the rule %s", r.id)
		}
	}
}

// The context of the process ends the command: an interrupt is not a
// hang.
func TestInterrupt(t *testing.T) {
	url := httpServer(t, shopServer(nil), func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body) // the server notices a closed connection once the body is read
			<-r.Context().Done()
		})
	})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	var out, errOut strings.Builder
	code := run(ctx, []string{"tools", "-quiet", url}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }})
	if code != exitProtocol || errOut.String() != "ferry: connecting to "+url+": interrupted\n" {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

// A URL whose path is no MCP endpoint: exit 3, with a hint about the path.
func TestWrongPath(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(shopServer(nil), nil))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	code, stdout, stderr := runFerry(t, []string{"tools", ts.URL + "/"})
	if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "404") ||
		!strings.HasSuffix(stderr, "; no MCP endpoint at this URL: check the path (often /mcp)\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A stdio server that never answers is killed at -timeout: exit 3 in
// about that time, not after a grace period.
func TestSilentStdioServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stdout, stderr := runFerry(t, []string{"tools", "-quiet", "-timeout", "1s", "--", exe, silentServerArg})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v with -timeout 1s", d)
	}
	if code != exitProtocol || stdout != "" || !strings.HasSuffix(stderr, ": no answer within 1s; raise -timeout if the server is slow\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A password in the URL (sent as basic auth) never shows in a message.
func TestURLPasswordHidden(t *testing.T) {
	url := httpServer(t, shopServer(nil), apiKeyMiddleware(t, "k-1"))
	withPassword := strings.Replace(url, "http://", "http://ci:pw-s3cr3t@", 1)
	for _, args := range [][]string{{"tools", withPassword}, {"lint", withPassword}, {"tools", "ftp://ci:pw-s3cr3t@x/mcp"}} {
		code, _, stderr := runFerry(t, args)
		if code == exitOK || strings.Contains(stderr, "pw-s3cr3t") || !strings.Contains(stderr, "ci:xxxxx@") {
			t.Errorf("%q: exit %d, stderr %q; want a failure with the password hidden", args, code, stderr)
		}
	}
}
