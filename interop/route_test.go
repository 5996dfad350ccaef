package interop

import (
	stdcmp "cmp"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The examples/orders service: its tools are bound to its REST routes, so
// its API-key middleware decides every call. ada's key may write, bob's
// only read.
const (
	ordersKeys = "k-ada=ada:write,k-bob=bob:read"
	adaKey     = "k-ada"
	bobKey     = "k-bob"
)

// buildOrders builds ./examples/orders, its own module, into dir.
func buildOrders(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "orders")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join("..", "examples", "orders")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/orders: %v\n%s", err, out)
	}
	return bin
}

// startOrders starts the service on a free loopback port over a new
// database and returns its MCP endpoint. It is interrupted when t ends.
func startOrders(t *testing.T, bin string) string {
	t.Helper()
	addr := freeAddr(t)
	stderr := new(ferrytest.Buffer)
	cmd := exec.CommandContext(t.Context(), bin, "-addr", addr, "-db", filepath.Join(t.TempDir(), "orders.db"), "-keys", ordersKeys, "-seed")
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = stopTimeout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		<-exited
		if t.Failed() {
			t.Logf("orders stderr:\n%s", stderr)
		}
	})
	if err := waitListening(t.Context(), addr, exited); err != nil {
		t.Fatalf("orders: %v\n%s", err, stderr)
	}
	return "http://" + addr + "/mcp"
}

// withKey sends an API key with every request, as an MCP client configured
// with the service's credentials does.
type withKey struct{ key string }

func (k withKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+k.key)
	return http.DefaultTransport.RoundTrip(r)
}

// connectOrders connects the go-sdk client to the service.
func connectOrders(ctx context.Context, t *testing.T, transport mcp.Transport, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "ferry-interop", Version: "v0.0.0"}, nil)
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := client.Connect(ctx, transport, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestGoSDKClientCallsRouteBoundTools(t *testing.T) {
	bin := buildOrders(t, t.TempDir())
	type conn struct {
		name      string
		version   string // the client's; empty for its latest, 2026-07-28
		transport func(t *testing.T, key string) mcp.Transport
	}
	overHTTP := func(t *testing.T, key string) mcp.Transport {
		return &mcp.StreamableClientTransport{Endpoint: startOrders(t, bin), HTTPClient: &http.Client{Transport: withKey{key}}}
	}
	overStdio := func(t *testing.T, key string) mcp.Transport {
		cmd := exec.CommandContext(t.Context(), bin, "-stdio", "-as", key, "-db", filepath.Join(t.TempDir(), "orders.db"), "-keys", ordersKeys, "-seed")
		cmd.WaitDelay = stopTimeout
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: stopTimeout}
	}
	var conns []conn
	for _, v := range []string{"", v20251125, v20250618} {
		conns = append(conns, conn{"http/" + stdcmp.Or(v, modernVersion), v, overHTTP}, conn{"stdio/" + stdcmp.Or(v, modernVersion), v, overStdio})
	}
	for _, c := range conns {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()
			cs := connectOrders(ctx, t, c.transport(t, adaKey), c.version)
			checkOrdersTools(ctx, t, cs)
			checkOrdersCalls(ctx, t, cs)
			reader := connectOrders(ctx, t, c.transport(t, bobKey), c.version)
			got := callText(ctx, t, reader, "cancel_order", map[string]any{"id": "A-1"}, true)
			if want := "forbidden: This API key may only read; bob cannot change orders."; got != want {
				t.Errorf("bob's cancel_order: %q, want %q", got, want)
			}
		})
	}
}

// checkOrdersTools lists the tools, with the hints their methods give.
func checkOrdersTools(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	readOnly := map[string]bool{}
	for _, tool := range res.Tools {
		readOnly[tool.Name] = tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	}
	want := map[string]bool{"get_order": true, "list_orders": true, "get_invoice": true, "create_order": false, "cancel_order": false, "month_end": false}
	if diff := cmp.Diff(want, readOnly); diff != "" {
		t.Errorf("tools and their readOnlyHint (-want +got):\n%s", diff)
	}
}

// checkOrdersCalls calls a tool, gets a refusal, and runs the job.
func checkOrdersCalls(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_order", Arguments: map[string]any{"id": "A-1"}})
	if err != nil || res.IsError {
		t.Fatalf("get_order: %v %+v", err, res)
	}
	data, _ := json.Marshal(res.StructuredContent)
	if want := `{"customer":"Ada Lovelace","id":"A-1","lines":[{"qty":3,"sku":"PEN-BLUE"}],"status":"open"}`; string(data) != want {
		t.Errorf("get_order structuredContent %s, want %s", data, want)
	}
	for _, tt := range []struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"cancel_order", map[string]any{"id": "A-2"}, "conflict: Order A-2 has shipped; it can no longer be cancelled.", true},
		{"get_order", map[string]any{"id": "Z-9"}, "not-found: No such order.", true},
		{"month_end", map[string]any{"period": "2026-10"}, "Closed 2026-10: the accruals are posted and the period is locked.", false},
		{"month_end", map[string]any{"period": "2026-10"}, "conflict: Period 2026-10 is locked.", true},
	} {
		if got := callText(ctx, t, cs, tt.tool, tt.args, tt.isError); got != tt.want {
			t.Errorf("%s %v: %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

// callText calls a tool and returns the text of its result, which must be
// a failure if wantError is set, and a success otherwise.
func callText(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantError bool) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if len(texts) != 1 {
		t.Fatalf("%s: content %+v", name, res.Content)
	}
	if res.IsError != wantError {
		t.Errorf("%s: isError %t for %q", name, res.IsError, texts[0])
	}
	return texts[0]
}
