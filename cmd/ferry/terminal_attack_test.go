package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// hostileText holds what a server could send to drive or disguise a
// terminal: C1 CSI (U+009B) starting a color sequence, ESC, DEL, a
// right-to-left override (U+202E), a line separator (U+2028), a
// zero-width space (U+200B), a language tag (U+E0041, a format character
// beyond the BMP) and a byte that is not UTF-8.
const hostileText = "red\u009b31m esc\x1b[2J del\x7f \u202egnp.exe line\u2028sep zero\u200bwidth tag\U000E0041 bad\xff"

// hostileRunes are the runes of hostileText that must never reach a
// terminal raw; the test names them itself rather than asking the code
// under test.
var hostileRunes = []rune{0x9b, 0x1b, 0x7f, 0x202e, 0x2028, 0x200b, 0xe0041}

// unsafeShown returns the hostile runes of s, and a byte that is not
// UTF-8, as a list, or "" when there are none.
func unsafeShown(s string) string {
	var bad []string
	for i, r := range s {
		switch {
		case r == 0xfffd && s[i] == 0xff:
			bad = append(bad, `\xff`)
		case slices.Contains(hostileRunes, r):
			bad = append(bad, fmt.Sprintf("%U", r))
		}
	}
	return strings.Join(bad, " ")
}

// hostileServer is a Ferry server whose tool, prompt and resource carry
// hostileText in their names' neighbours: descriptions, titles, results.
func hostileServer() *ferry.Server {
	srv := ferry.NewServer("hostile", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Title: "Echo " + hostileText,
		Description: "Echoes text back: " + hostileText, ReadOnly: true},
		func(_ context.Context, _ struct{}) (string, error) {
			return "", ferry.Invalid("refused: " + hostileText)
		})
	srv.AddPromptTemplate(ferry.Prompt{Name: "greet", Title: "Greet",
		Description: "Greets someone: " + hostileText, Template: "Hello " + hostileText})
	srv.AddResource(ferry.Resource{URI: "h://text", Name: "text", Description: "Text: " + hostileText, MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: hostileText}}, nil
		})
	return srv
}

// rpcErrorMiddleware answers every tools/call with a JSON-RPC error whose
// message is hostileText, its runes raw.
func rpcErrorMiddleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		if m.Method == "tools/call" {
			w.Header().Set("Content-Type", "application/json")
			// Written by hand, so that the runes are sent raw; the client
			// refuses an answer that is not UTF-8, so the bad byte is left out.
			msg := strings.ReplaceAll(strings.TrimSuffix(hostileText, " bad\xff"), "\x1b", `\u001b`)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"%s"}}`, m.ID, msg)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// What a server sends cannot drive the terminal: no client command
// writes a control, format or separator character of the server's on
// stdout or stderr, and the JSON on stdout still decodes to what the
// server sent.
func TestServerTextCannotDriveTerminal(t *testing.T) {
	url := httpServer(t, hostileServer(), nil)
	erring := httpServer(t, hostileServer(), rpcErrorMiddleware)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"tools", []string{"tools", url}, exitOK},
		{"call error result", []string{"call", url, "echo"}, exitFailed},
		{"call JSON-RPC error", []string{"call", erring, "echo"}, exitProtocol},
		{"call JSON-RPC error, legacy", []string{"call", "-protocol", "2025-11-25", erring, "echo"}, exitProtocol},
		{"prompts", []string{"prompts", url}, exitOK},
		{"read", []string{"read", url, "h://text"}, exitOK},
		{"lint", []string{"lint", url}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, tt.args)
			if code != tt.want {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.want, stderr)
			}
			if bad := unsafeShown(stdout); bad != "" {
				t.Errorf("stdout holds %s raw:\n%q", bad, stdout)
			}
			if bad := unsafeShown(stderr); bad != "" {
				t.Errorf("stderr holds %s raw:\n%q", bad, stderr)
			}
			if stdout != "" && !strings.Contains(stdout, `\u202e`) {
				t.Errorf("stdout does not show the override escaped:\n%s", stdout)
			}
		})
	}
	// The escapes change how the JSON reads, not what it says.
	_, stdout, _ := runFerry(t, []string{"read", url, "h://text"})
	var got struct {
		Contents []struct{ Text string } `json:"contents"`
	}
	decodeStdout(t, stdout, &got)
	if want := strings.ToValidUTF8(hostileText, "\ufffd"); len(got.Contents) != 1 || got.Contents[0].Text != want {
		t.Errorf("the resource's text decodes to %q, want %q", got.Contents, want)
	}
}

// hostileStderrArg makes a re-executed test binary a stdio server that
// first writes hostileText on its stderr.
const hostileStderrArg = "ferry-cli-test-hostile-stderr"

// serveHostileStderr is the stdio server of hostileStderrArg.
func serveHostileStderr() {
	fmt.Fprint(os.Stderr, "starting "+hostileText+"\n")
	if err := shopServer(nil).Run(context.Background(), &ferry.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// A stdio server's own stderr, which ferry passes on, is escaped too,
// line breaks kept.
func TestStdioServerStderrEscaped(t *testing.T) {
	cmd := stdioCommand(t)
	cmd[2] = hostileStderrArg
	code, _, stderr := runFerry(t, append([]string{"tools", "-quiet"}, cmd...))
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if bad := unsafeShown(stderr); bad != "" {
		t.Errorf("stderr holds %s raw:\n%q", bad, stderr)
	}
	if !strings.Contains(stderr, `starting red\u009b31m`) || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr %q does not show the server's line escaped", stderr)
	}
}
