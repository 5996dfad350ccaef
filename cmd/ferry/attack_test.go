package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
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
