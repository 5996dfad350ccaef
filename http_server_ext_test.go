package ferry_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/google/go-cmp/cmp"
)

// serve starts hs on a loopback port and returns its address; hs is
// closed when t ends.
func serve(t *testing.T, hs *http.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = hs.Close()
		<-done
	})
	return ln.Addr().String()
}

// cutOff reports whether the server closes conn within wait, reading
// and discarding whatever it sends (a 408 or 400 answer) until then.
func cutOff(t *testing.T, conn net.Conn, wait time.Duration) bool {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(wait)); err != nil {
		t.Fatal(err)
	}
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

func TestNewHTTPServerSetsTheLimits(t *testing.T) {
	t.Parallel()
	h := http.NewServeMux()
	hs := ferry.NewHTTPServer("127.0.0.1:8080", h)
	type limits struct {
		Addr                                                      string
		ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
		MaxHeaderBytes                                            int
	}
	got := limits{hs.Addr, hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout, hs.MaxHeaderBytes}
	want := limits{"127.0.0.1:8080", 10 * time.Second, 30 * time.Second, 0, 2 * time.Minute, 64 << 10}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewHTTPServer limits (-want +got):\n%s", diff)
	}
	if hs.Handler != h {
		t.Errorf("NewHTTPServer did not keep the handler")
	}
}

func TestNewHTTPServerCutsOffSlowClients(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		send string // what the client sends, then stalls
	}{
		{"headers sent byte by byte, never finished", "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: appl"},
		{"a body that never ends", "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hs := ferry.NewHTTPServer("", ferry.NewHTTPHandler(ferry.NewServer("s", "1", nil), nil))
			hs.ReadHeaderTimeout, hs.ReadTimeout = 100*time.Millisecond, 200*time.Millisecond
			conn, err := net.Dial("tcp", serve(t, hs))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			if !cutOff(t, conn, 5*time.Second) {
				t.Errorf("a client that stalls after %q still holds its connection after 5s", tt.send)
			}
		})
	}
}

// A call that takes longer than ReadTimeout is answered: the timeout
// bounds reading the request, not the answer or the SSE stream after it.
func TestNewHTTPServerLetsLongCallsFinish(t *testing.T) {
	t.Parallel()
	const readTimeout = 100 * time.Millisecond
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "slow", Description: "Takes a while."},
		func(ctx context.Context, in struct{}) (string, error) {
			select {
			case <-time.After(5 * readTimeout):
				return "done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})
	hs := ferry.NewHTTPServer("", ferry.NewHTTPHandler(srv, nil))
	hs.ReadHeaderTimeout, hs.ReadTimeout = readTimeout, readTimeout
	addr := serve(t, hs)

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "slow")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"done"`) {
		t.Errorf("slow call: %d %s, want 200 with the tool's text", resp.StatusCode, answer)
	}
}
