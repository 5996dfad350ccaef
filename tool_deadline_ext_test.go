package ferry_test

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// waitForContext is a handler that returns when its context ends, saying
// whether it had a deadline.
func waitForContext(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	if _, ok := ctx.Deadline(); !ok {
		return ferry.NewResult(ferry.Text("no deadline")), nil
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// A tool's own Timeout replaces the server's CallTimeout, longer or
// shorter, in both eras over HTTP and on stdio; the answer names the
// tool's deadline; a negative Timeout leaves the call without one; the
// catalog says each tool's.
func TestToolTimeoutReplacesTheServers(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: 40 * time.Millisecond}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "fast", Description: "Fails fast.", Timeout: 30 * time.Millisecond}, waitForContext)
	srv.AddTool(ferry.Tool{Name: "report", Description: "Takes its time.", Timeout: 10 * time.Second},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			select {
			case <-time.After(200 * time.Millisecond): // past the server's deadline, within the tool's
				return ferry.NewResult(ferry.Text("report ready")), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	srv.AddTool(ferry.Tool{Name: "unbounded", Description: "Has no deadline.", Timeout: -1}, waitForContext)
	srv.AddTool(ferry.Tool{Name: "default", Description: "Has the server's."}, waitForContext)
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	want := map[string]string{
		"fast":      `"text":"unavailable: the tool timed out after 30ms"}],"isError":true`,
		"report":    `"text":"report ready"}]`,
		"unbounded": `"text":"no deadline"}]`,
		"default":   `"text":"unavailable: the tool timed out after 40ms"}],"isError":true`,
	}
	for tool, want := range want {
		for _, e := range eras {
			t.Run(e.name+"/"+tool, func(t *testing.T) {
				got := e.send(t, ts.URL, "tools/call", tool, `"name":"`+tool+`","arguments":{}`)
				if got.status != 200 || !strings.Contains(got.body, want) {
					t.Errorf("%d %s; want %s", got.status, got.body, want)
				}
			})
		}
		t.Run("stdio/"+tool, func(t *testing.T) {
			var out strings.Builder
			line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + modernMeta + `}}` + "\n"
			if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(line), Writer: &out}); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s; want %s", out.String(), want)
			}
		})
	}
	timeouts := map[string]time.Duration{}
	for _, info := range srv.Catalog().Tools() {
		timeouts[info.Name] = info.Timeout
	}
	wantTimeouts := map[string]time.Duration{"fast": 30 * time.Millisecond, "report": 10 * time.Second, "unbounded": 0, "default": 40 * time.Millisecond}
	for name, d := range wantTimeouts {
		if timeouts[name] != d {
			t.Errorf("catalog: %s has Timeout %v, want %v", name, timeouts[name], d)
		}
	}
}

// A typed tool takes its Timeout from its Tool as any tool does.
func TestTypedToolTimeout(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: time.Hour}, Logger: discard})
	type in struct {
		Q string `json:"q"`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "lookup", Description: "Looks up slowly.", Timeout: 20 * time.Millisecond},
		func(ctx context.Context, _ in) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		start := time.Now()
		got := e.send(t, ts.URL, "tools/call", "lookup", `"name":"lookup","arguments":{"q":"x"}`)
		if !strings.Contains(got.body, "unavailable: the tool timed out after 20ms") {
			t.Errorf("%s: %s", e.name, got.body)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: answered after %v", e.name, d)
		}
	}
}
