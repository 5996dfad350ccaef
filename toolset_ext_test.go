package ferry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/google/go-cmp/cmp"
)

// toolsetServer is groupedServer with legacy toolsets, billing enabled at
// the start, and a group whose only tool is hidden from most callers.
func toolsetServer(t testing.TB) *ferry.Server {
	t.Helper()
	s := groupedServer(t, &ferry.ServerOptions{Toolsets: &ferry.ToolsetOptions{Enabled: []string{"billing"}}})
	s.AddTool(ferry.Tool{Name: "rotate_keys", Description: "Rotates the keys.", Groups: []string{"secrets"}, Roles: []string{"admin"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("rotated")), nil
		})
	return s
}

// heard records the notifications a client is sent.
type heard struct {
	mu      sync.Mutex
	methods []string
}

func (h *heard) notify(method string, _ json.RawMessage) {
	h.mu.Lock()
	h.methods = append(h.methods, method)
	h.mu.Unlock()
}

func (h *heard) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.methods
	h.methods = nil
	return m
}

func dialToolsets(t *testing.T, h http.Handler, era string, n *heard) *client.Client {
	t.Helper()
	c, err := client.DialHandler(t.Context(), h, &client.Options{Protocol: era, Notify: n.notify})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func mustTools(t *testing.T, c *client.Client) []string {
	t.Helper()
	tools, err := c.ListTools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return toolNames(tools)
}

type toolsetOut struct {
	Groups []struct {
		Name    string `json:"name"`
		Tools   int    `json:"tools"`
		Enabled bool   `json:"enabled"`
	} `json:"groups"`
}

func chooseToolsets(t *testing.T, c *client.Client, args map[string]any) (toolsetOut, *client.ToolResult) {
	t.Helper()
	res, err := c.CallTool(t.Context(), "toolsets", args)
	if err != nil {
		t.Fatal(err)
	}
	var out toolsetOut
	if !res.IsError {
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out, res
}

func TestToolsetsLegacy(t *testing.T) {
	t.Parallel()
	s := toolsetServer(t)
	h := asCaller(ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Stateful: true}))
	n := new(heard)
	c := dialToolsets(t, h, ferry.Version20251125, n)
	ctx := t.Context()

	// At the start: the toolset tool, billing (enabled) and the entries
	// of no group; refund stays hidden (a role), stock is off.
	if diff := cmp.Diff([]string{"toolsets", "both", "list_invoices", "loose", "pay_invoice"}, mustTools(t, c)); diff != "" {
		t.Fatalf("tools at the start (-want +got):\n%s", diff)
	}
	out, _ := chooseToolsets(t, c, nil)
	got := map[string]bool{}
	for _, g := range out.Groups {
		got[g.Name] = g.Enabled
	}
	// secrets holds only a tool this caller may not see: not listed.
	if diff := cmp.Diff(map[string]bool{"billing": true, "stock": false}, got); diff != "" {
		t.Fatalf("groups (-want +got):\n%s", diff)
	}
	if m := n.take(); m != nil {
		t.Fatalf("listing the groups sent %v", m)
	}
	if res, err := c.CallTool(ctx, "count_stock", nil); err == nil && !res.IsError {
		t.Fatal("count_stock, of a group not enabled, was called")
	}

	// Enable stock, disable billing: the lists change and the client is told.
	chooseToolsets(t, c, map[string]any{"enable": []string{"stock"}, "disable": []string{"billing"}})
	want := []string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"}
	if diff := cmp.Diff(want, n.take()); diff != "" {
		t.Fatalf("notifications (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"toolsets", "both", "count_stock", "loose"}, mustTools(t, c)); diff != "" {
		t.Fatalf("tools after the choice (-want +got):\n%s", diff)
	}
	prompts, err := c.ListPrompts(ctx)
	if err != nil || len(prompts) != 1 || prompts[0].Name != "restock" {
		t.Fatalf("prompts after the choice: %v, %v", prompts, err)
	}
	if _, err := c.ReadResource(ctx, "shop://billing/terms"); err == nil {
		t.Fatal("a resource of a disabled group was read")
	}
	if res, err := c.CallTool(ctx, "count_stock", nil); err != nil || res.IsError {
		t.Fatalf("count_stock: %v %v", res, err)
	}
	// The same choice again changes nothing and says nothing.
	chooseToolsets(t, c, map[string]any{"enable": []string{"stock"}})
	if m := n.take(); m != nil {
		t.Fatalf("a choice that changed nothing sent %v", m)
	}

	// A hidden group cannot be enabled, and is not named.
	_, res := chooseToolsets(t, c, map[string]any{"enable": []string{"secrets"}})
	if text := res.Text(); !res.IsError || !strings.Contains(text, `no group named "secrets"`) || strings.Contains(text, "rotate") {
		t.Fatalf("enabling a hidden group: %s", text)
	}
	if _, res := chooseToolsets(t, c, map[string]any{"only": []string{"stock"}}); !res.IsError {
		t.Fatal("an unknown argument was taken")
	}

	// An admin sees secrets, and enabling it serves rotate_keys; refund
	// needs the role too and comes with billing.
	admin := &client.Options{Protocol: ferry.Version20251125, Header: http.Header{"X-User": {"ann"}, "X-Roles": {"admin"}}}
	ac, err := client.DialHandler(ctx, h, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close()
	chooseToolsets(t, ac, map[string]any{"enable": []string{"secrets"}})
	if names := mustTools(t, ac); !slices.Contains(names, "rotate_keys") || !slices.Contains(names, "refund") {
		t.Fatalf("admin's tools: %v", names)
	}
	// The first session's choice is its own.
	if names := mustTools(t, c); slices.Contains(names, "rotate_keys") || slices.Contains(names, "pay_invoice") {
		t.Fatalf("the first session's tools changed with another's choice: %v", names)
	}
}

func TestToolsetsModern(t *testing.T) {
	t.Parallel()
	s := toolsetServer(t)
	c := dialToolsets(t, ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Stateful: true}), ferry.Version20260728, new(heard))
	// Every tool the caller may see, and no toolset tool.
	if diff := cmp.Diff([]string{"both", "count_stock", "list_invoices", "loose", "pay_invoice"}, mustTools(t, c)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	_, err := c.CallTool(t.Context(), "toolsets", map[string]any{"enable": []string{"stock"}})
	var e *client.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "toolsets") {
		t.Fatalf("calling the toolset tool in the 2026-07-28 era: %v", err)
	}
}

func TestToolsetsStateless(t *testing.T) {
	t.Parallel()
	s := toolsetServer(t)
	c := dialToolsets(t, ferry.NewHTTPHandler(s, nil), ferry.Version20251125, new(heard))
	// A session that keeps nothing cannot choose: it is served every group.
	if diff := cmp.Diff([]string{"both", "count_stock", "list_invoices", "loose", "pay_invoice"}, mustTools(t, c)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
}

func TestToolsetsGroupEndpoint(t *testing.T) {
	t.Parallel()
	s := toolsetServer(t)
	mux := http.NewServeMux()
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Stateful: true, GroupPathValue: "group"}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := client.DialHTTP(t.Context(), srv.URL+"/mcp/stock", &client.Options{Protocol: ferry.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The endpoint's groups only: billing is not there to enable.
	if diff := cmp.Diff([]string{"toolsets"}, mustTools(t, c)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	out, _ := chooseToolsets(t, c, map[string]any{"enable": []string{"stock"}})
	if len(out.Groups) != 1 || out.Groups[0].Name != "stock" || !out.Groups[0].Enabled || out.Groups[0].Tools != 2 {
		t.Fatalf("groups: %+v", out.Groups)
	}
	if diff := cmp.Diff([]string{"toolsets", "both", "count_stock"}, mustTools(t, c)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	if _, res := chooseToolsets(t, c, map[string]any{"enable": []string{"billing"}}); !res.IsError {
		t.Fatal("a group of another endpoint was enabled")
	}
}

func TestToolsetsCheck(t *testing.T) {
	t.Parallel()
	s := ferry.NewServer("x", "1", &ferry.ServerOptions{Toolsets: &ferry.ToolsetOptions{Enabled: []string{"a b"}}})
	s.AddTool(ferry.Tool{Name: "toolsets", Description: "Mine."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, nil
	})
	err := s.Check()
	if err == nil || !strings.Contains(err.Error(), `"toolsets" has the name of the toolset tool`) || !strings.Contains(err.Error(), `"a b"`) {
		t.Fatalf("Check: %v", err)
	}
}

func TestToolsetsStdio(t *testing.T) {
	t.Parallel()
	s := toolsetServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(t.Context(), &ferry.IOTransport{Reader: inR, Writer: outW}) }()
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	// send writes a message and returns the lines read up to its answer.
	send := func(msg string, id string) []string {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if id == "" {
			return nil
		}
		var got []string
		for lines.Scan() {
			got = append(got, lines.Text())
			if strings.Contains(lines.Text(), `"id":`+id+`,`) || strings.HasSuffix(lines.Text(), `"id":`+id+`}`) {
				return got
			}
		}
		t.Fatalf("no answer to %s: %v", msg, got)
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, "1")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")
	got := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"toolsets","arguments":{"enable":["stock"],"disable":["billing"]}}}`, "2")
	if len(got) != 4 || !strings.Contains(got[0], "notifications/tools/list_changed") || !strings.Contains(got[3], `stock (enabled)`) {
		t.Fatalf("choosing toolsets over stdio:\n%s", strings.Join(got, "\n"))
	}
	got = send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, "3")
	var list struct {
		Result struct{ Tools []struct{ Name string } } `json:"result"`
	}
	if err := json.Unmarshal([]byte(got[len(got)-1]), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Result.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"toolsets", "both", "count_stock", "loose"}, names); diff != "" {
		t.Fatalf("tools over stdio after the choice (-want +got):\n%s", diff)
	}
	inW.Close()
	go func() {
		for lines.Scan() { // keep the server's writes flowing
		}
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	outW.Close()
}
