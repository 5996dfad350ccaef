package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A TARGET the URL parser refuses is a usage error that shows no password:
// neither the string as given nor the parser's reason, which may quote it.
func TestUnparsableURLHidesPassword(t *testing.T) {
	for _, u := range []string{
		"http://ci:pw-s3cr3t@[::1",
		"http://ci:pw-s3cr3t/x@host/mcp", // the parser takes pw-s3cr3t for a port
		"http://ci:pw-s3cr3t%zz@host/mcp",
	} {
		code, stdout, stderr := runFerry(t, []string{"tools", u})
		first, _, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || stdout != "" || strings.Contains(stderr, "pw-s3cr3t") ||
			!strings.HasPrefix(first, `ferry: tools: TARGET "http://xxxxx@`) || !strings.Contains(first, "cannot be read as a URL") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the password hidden", u, code, stderr)
		}
	}
}

// TARGETs that are not an HTTP endpoint are refused before anything is
// sent, each with the reason.
func TestTargetSchemesRefused(t *testing.T) {
	tests := []struct{ target, want string }{
		{"file:///etc/passwd", `ferry: tools: TARGET "file:///etc/passwd" is not an http:// or https:// URL`},
		{"unix:///run/mcp.sock", `is not an http:// or https:// URL`},
		{"javascript:alert(1)", `is not an http:// or https:// URL`},
		{"ws://127.0.0.1:1/mcp", `is not an http:// or https:// URL`},
		{"http:///mcp", `ferry: tools: TARGET "http:///mcp" has no host; write it as http://HOST:PORT/mcp`},
		{"http://ci:pw-s3cr3t@/mcp", `TARGET "http://ci:xxxxx@/mcp" has no host`},
		{"-- server", `flag provided but not defined`}, // one argument, not "--" then a command
	}
	for _, tt := range tests {
		code, stdout, stderr := runFerry(t, []string{"tools", tt.target})
		first, _, _ := strings.Cut(stderr, "\n")
		if code != exitUsage || stdout != "" || !strings.Contains(first, tt.want) || strings.Contains(stderr, "pw-s3cr3t") {
			t.Errorf("%q: exit %d, first line %q; want 2 and %q", tt.target, code, first, tt.want)
		}
	}
}

// A 403 refusing the request's Host (DNS rebinding protection) is not a
// credentials problem: the hint says what to change.
func TestRefusedHostHint(t *testing.T) {
	url := httpServer(t, shopServer(nil), func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Host = "shop.example.com" // as a request reaching a loopback-only server under another name
			h.ServeHTTP(w, r)
		})
	})
	code, stdout, stderr := runFerry(t, []string{"tools", "-header", "Authorization: Bearer k-1", url})
	if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "(HTTP 403)") ||
		strings.Contains(stderr, "credentials") || !strings.HasSuffix(stderr, "or have it allow the name (ferry serve -allow-host)\n") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A stdio server that leaves a child holding its stdout and stderr does
// not keep ferry waiting for that child: the command ends in seconds.
func TestStdioServerOrphanChild(t *testing.T) {
	cmd := stdioCommand(t)
	cmd[2] = orphanServerArg
	start := time.Now()
	code, stdout, stderr := runFerry(t, append([]string{"tools", "-quiet"}, cmd...))
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v: ferry waited for the server's child", d)
	}
	if code != exitOK || !strings.Contains(stdout, `"get_order"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// hostileListing serves a legacy MCP endpoint whose tools/list pages are
// each a 2 MiB tool and never end; it counts the pages it served.
func hostileListing(t *testing.T) (url string, pages *atomic.Int64) {
	t.Helper()
	pages = new(atomic.Int64)
	desc := strings.Repeat("x", 2<<20)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		_ = json.Unmarshal(body, &m)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, m.ID)
		case "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}}`, m.ID)
		case "tools/list":
			n := pages.Add(1)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t%d","description":"%s","inputSchema":{"type":"object"}}],"nextCursor":"c%d"}}`, m.ID, n, desc, n)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", pages
}

// A server whose listing never ends cannot make ferry tools or lint hold
// more than maxReceived: it stops there, exit 3, one line.
func TestHostileListingBounded(t *testing.T) {
	// The real budget takes long to reach under -race; the test's is the
	// same code with a smaller number.
	defer func(b int64) { receiveBudget = b }(receiveBudget)
	receiveBudget = 16 << 20
	for _, cmd := range []string{"tools", "lint"} {
		url, pages := hostileListing(t)
		code, stdout, stderr := runFerry(t, []string{cmd, "-quiet", url})
		want := "the server sent more than 16 MiB; no MCP server needs that much for a command\n"
		if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, want) {
			t.Errorf("%s: exit %d, stdout %.100q, stderr %q; want 3 and %q", cmd, code, stdout, stderr, want)
		}
		if n, most := pages.Load(), receiveBudget/(2<<20)+2; n > most {
			t.Errorf("%s: read %d pages of 2 MiB, want at most %d", cmd, n, most)
		}
	}
}

// A redirect to another origin is not followed: the credentials of
// -header (X-API-Key, which net/http would forward) never reach it. A
// redirect within the origin is followed.
func TestRedirectKeepsCredentials(t *testing.T) {
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" || r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer other.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(shopServer(nil), nil))
	mux.Handle("/away", http.RedirectHandler(other.URL+"/mcp", http.StatusTemporaryRedirect))
	mux.Handle("/moved", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	code, stdout, stderr := runFerry(t, []string{"tools", "-header", "X-API-Key: k-s3cr3t", ts.URL + "/away"}, "FERRY_TOKEN", "t-s3cr3t")
	if leaked.Load() {
		t.Error("the credentials were sent to the other origin")
	}
	if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "another origin, where ferry sends no credentials") ||
		strings.Contains(stderr, "s3cr3t") {
		t.Errorf("redirect away: exit %d, stdout %.100q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runFerry(t, []string{"tools", "-header", "X-API-Key: k-1", ts.URL + "/moved"})
	if code != exitOK || !strings.Contains(stdout, `"get_order"`) {
		t.Errorf("redirect within the origin: exit %d, stdout %.100q, stderr %q", code, stdout, stderr)
	}
}

// Header lines that would fail the request later (control characters),
// split it (line breaks), or lose silently to what ferry sets itself are
// usage errors, exit 2, before anything is sent, and show no value.
func TestHeaderInjection(t *testing.T) {
	tests := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"-header", "X-Key: s3cr3t\r\nX-Evil: 1"}, nil, `ferry: -header "X-Key: ..." is not a header line`},
		{[]string{"-header", "X-Key: s3cr3t\x01"}, nil, `ferry: -header "X-Key: ..." is not a header line`},
		{[]string{"-header", "X-Key: s3cr3t\x7f"}, nil, `ferry: -header "X-Key: ..." is not a header line`},
		{[]string{"-header", "X-Key\r\nX-Evil: s3cr3t"}, nil, `is not a header line`},
		{[]string{"-header-env", "K"}, []string{"K", "X-Key: s3cr3t\x1b[2J"}, "ferry: the environment variable K is not a header line"},
		{nil, []string{"FERRY_TOKEN", "s3cr3t\x00"}, "ferry: FERRY_TOKEN holds a line break or another control character"},
		{nil, []string{"FERRY_TOKEN", "s3cr3t\x1b"}, "ferry: FERRY_TOKEN holds a line break or another control character"},
		{[]string{"-header", "Host: evil.example"}, nil, `ferry: -header "Host: ...": ferry sets Host itself`},
		{[]string{"-header", "content-type: text/plain"}, nil, `ferry sets Content-Type itself`},
		{[]string{"-header", "MCP-Protocol-Version: 1999-01-01"}, nil, `ferry sets Mcp-Protocol-Version itself (-protocol chooses the version)`},
		{[]string{"-header-env", "K"}, []string{"K", "Transfer-Encoding: chunked"}, `ferry: the environment variable K: ferry sets Transfer-Encoding itself`},
	}
	for _, tt := range tests {
		args := append(append([]string{"tools"}, tt.args...), "http://127.0.0.1:1/mcp")
		code, _, stderr := runFerry(t, args, tt.env...)
		if code != exitUsage || !strings.HasPrefix(stderr, "ferry: ") || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q %q: exit %d, stderr %q; want 2 and %q", tt.args, tt.env, code, stderr, tt.want)
		}
		if strings.Contains(stderr, "s3cr3t") || strings.Contains(stderr, "\x1b") {
			t.Errorf("%q: stderr shows the value: %q", tt.args, stderr)
		}
	}
	// A tab inside a value is legal and kept.
	url := httpServer(t, shopServer(nil), apiKeyMiddleware(t, "k-1"))
	if code, _, stderr := runFerry(t, []string{"tools", "-header", "X-API-Key: k-1", "-header", "X-Note: a\tb", url}); code != exitOK {
		t.Errorf("a tab in a value: exit %d, %q", code, stderr)
	}
}

// Arguments on stdin are bounded: past maxStdin, exit 2 and one line
// before the usage, with nothing sent. Reading them yields to an
// interrupt: a terminal's stdin that never ends is no hang.
func TestCallStdinBounded(t *testing.T) {
	var hits atomic.Int64
	url := httpServer(t, shopServer(nil), func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			next.ServeHTTP(w, r)
		})
	})
	huge := `{"id": 1, "pad": "` + strings.Repeat("x", maxStdin) + `"}`
	code, stdout, stderr := runFerryIn(t, huge, []string{"call", url, "get_order", "-"})
	first, _, _ := strings.Cut(stderr, "\n")
	if code != exitUsage || stdout != "" || first != fmt.Sprintf("ferry: call: reading the arguments from stdin: more than %d bytes", maxStdin) {
		t.Errorf("exit %d, stdout %.100q, first line %q", code, stdout, first)
	}
	if hits.Load() != 0 {
		t.Error("the arguments were sent")
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	var out, errOut strings.Builder
	start := time.Now()
	code = run(ctx, []string{"call", url, "get_order", "-"}, &env{stdin: pr, stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to notice the interrupt", d)
	}
	if code != exitFailed || errOut.String() != "ferry: call: interrupted while reading the arguments from stdin\n" {
		t.Errorf("interrupted: exit %d, stderr %q", code, errOut.String())
	}
}

// A stdio command that is empty is a usage error; one that cannot be
// run (missing, a directory, not executable) is exit 3 with a hint.
func TestOddStdioCommands(t *testing.T) {
	code, _, stderr := runFerry(t, []string{"tools", "--", ""})
	if code != exitUsage || !strings.HasPrefix(stderr, `ferry: tools: "--" must be followed by the stdio server's command`) {
		t.Errorf(`"-- ''": exit %d, stderr %q`, code, stderr)
	}
	dir := t.TempDir()
	for _, cmd := range []string{dir + "/missing-server", dir, "-h"} {
		code, stdout, stderr := runFerry(t, []string{"tools", "--", cmd})
		if code != exitProtocol || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, `; check the command after "--"`+"\n") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", cmd, code, stdout, stderr)
		}
	}
}

// A server's error message of a megabyte, with line breaks, is cut: the
// error stays one short line and the hint stays in sight.
func TestLongServerErrorCut(t *testing.T) {
	msg := strings.Repeat("boom\n", 200<<10)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		_ = json.Unmarshal(body, &m)
		w.Header().Set("Content-Type", "application/json")
		data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": msg}})
		_, _ = w.Write(data)
	}))
	defer ts.Close()
	code, _, stderr := runFerry(t, []string{"tools", "-protocol", "2026-07-28", ts.URL + "/mcp"})
	if code != exitProtocol || strings.Count(stderr, "\n") != 1 || len(stderr) > 4*maxShownMessage ||
		!strings.HasSuffix(stderr, "...; the server does not offer this\n") {
		t.Errorf("exit %d, %d bytes of stderr: %.300q", code, len(stderr), stderr)
	}
}
