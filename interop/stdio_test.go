package interop

import (
	"bufio"
	"context"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Raw stdio messages, one a line.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ferry-interop","version":"v0.0.0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	echoLine        = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
)

// TestStdioServerExitsOnEOF checks that the stdio server exits with status 0,
// promptly and without a signal, once its input is closed.
func TestStdioServerExitsOnEOF(t *testing.T) {
	tests := []struct {
		name string
		send []string // written, one a line, before stdin is closed
	}{
		{name: "before any message"},
		{name: "after initialize", send: []string{initializeLine}},
		{name: "after a tool call", send: []string{initializeLine, initializedLine, echoLine}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()
			cmd := stdioCommand(ctx, t)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stdout)
			lines.Buffer(nil, 1<<20)
			for _, line := range tt.send {
				if _, err := io.WriteString(stdin, line+"\n"); err != nil {
					t.Fatalf("writing %s: %v", line, err)
				}
				if msg, err := jsonrpc.DecodeMessage([]byte(line)); err == nil {
					if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
						readResponse(t, lines, req.ID)
					}
				}
			}

			closed := time.Now()
			if err := stdin.Close(); err != nil {
				t.Fatal(err)
			}
			for lines.Scan() {
				t.Logf("after EOF the server wrote: %s", lines.Bytes())
			}
			err = cmd.Wait()
			elapsed := time.Since(closed)
			if ctx.Err() != nil {
				t.Fatalf("server still running %v after stdin was closed; killed", elapsed.Round(time.Millisecond))
			}
			if err != nil || !cmd.ProcessState.Success() {
				t.Errorf("server exit after EOF: %v, %s; want exit code 0", err, exitSummary(cmd.ProcessState))
			}
			if elapsed > stopTimeout {
				t.Errorf("server took %v to exit after EOF, want at most %v", elapsed.Round(time.Millisecond), stopTimeout)
			}
		})
	}
}

// readResponse reads lines until the response to the request with the given
// id, which must not be an error. Other messages (notifications) are skipped.
func readResponse(t *testing.T, lines *bufio.Scanner, id jsonrpc.ID) {
	t.Helper()
	for lines.Scan() {
		msg, err := jsonrpc.DecodeMessage(lines.Bytes())
		if err != nil {
			t.Fatalf("server wrote a line that is not JSON-RPC: %s: %v", lines.Bytes(), err)
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok {
			continue
		}
		if resp.ID != id {
			t.Fatalf("got response to id %v, want id %v: %s", resp.ID.Raw(), id.Raw(), lines.Bytes())
		}
		if resp.Error != nil {
			t.Fatalf("response to id %v is an error: %v", id.Raw(), resp.Error)
		}
		return
	}
	t.Fatalf("stdout ended before the response to id %v: %v", id.Raw(), lines.Err())
}

// TestStdioSDKClientCloseEndsServer checks that the go-sdk client's Close,
// which closes the server's stdin and then waits, sees the server exit with
// status 0 before it would resort to SIGTERM.
func TestStdioSDKClientCloseEndsServer(t *testing.T) {
	tests := []struct {
		name          string
		clientVersion string // if empty, the SDK's latest
	}{
		{name: "latest"},
		{name: v20250618, clientVersion: v20250618},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()
			// Long enough that a server that ignores EOF is caught by the clock
			// below rather than by a SIGTERM it might handle gracefully.
			const terminate = 2 * stopTimeout
			cmd := stdioCommand(ctx, t)
			client := mcp.NewClient(&mcp.Implementation{Name: "ferry-interop", Version: "v0.0.0"}, nil)
			var opts *mcp.ClientSessionOptions
			if tt.clientVersion != "" {
				opts = &mcp.ClientSessionOptions{ProtocolVersion: tt.clientVersion}
			}
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}, opts)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Errorf("ListTools: %v", err)
			}
			start := time.Now()
			err = cs.Close()
			elapsed := time.Since(start)
			if err != nil {
				t.Errorf("Close: %v", err)
			}
			if elapsed >= stopTimeout {
				t.Errorf("Close took %v, want < %v: the server did not exit on EOF", elapsed.Round(time.Millisecond), stopTimeout)
			}
			if ps := cmd.ProcessState; ps == nil || !ps.Success() {
				t.Errorf("server after Close: %s, want exit code 0", exitSummary(ps))
			}
		})
	}
}
