package ferry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
)

// discoveryServer is groupedServer in discovery mode, with list_invoices
// pinned and a typed tool whose arguments are checked.
func discoveryServer(t testing.TB, opts ferry.ServerOptions) *ferry.Server {
	t.Helper()
	opts.Discovery = &ferry.DiscoveryOptions{Pinned: []string{"list_invoices", "refund"}}
	s := groupedServer(t, &opts)
	ferry.AddTool(s, ferry.Tool{Name: "ship_order", Description: "Ships an order to its customer.", Groups: []string{"stock"}},
		func(_ context.Context, in struct {
			OrderID int `json:"order_id" doc:"The order to ship." minimum:"1"`
		}) (string, error) {
			return "shipped", nil
		})
	return s
}

type found struct {
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

func search(t *testing.T, c *ferrytest.Client, query string) []string {
	t.Helper()
	out, _ := ferrytest.Call[found](t, c, "search_tools", map[string]any{"query": query})
	var names []string
	for _, tl := range out.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestDiscoveryMode(t *testing.T) {
	t.Parallel()
	log := new(ferrytest.Buffer)
	s := discoveryServer(t, ferry.ServerOptions{Logger: log.Logger()})
	srv := httptest.NewServer(asCaller(ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Stateful: true})))
	t.Cleanup(srv.Close)
	for _, era := range versions {
		t.Run(era, func(t *testing.T) {
			c := ferrytest.DialHTTP(t, srv.URL, &ferrytest.Options{Protocol: era})
			ctx := t.Context()
			// refund is pinned but needs a role: not listed to this caller.
			if diff := cmp.Diff([]string{"search_tools", "call_tool", "list_invoices"}, toolNames(c.ListTools(ctx))); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			for _, tl := range c.ListTools(ctx) {
				a := tl.Annotations
				if tl.Name == "call_tool" && (*a.ReadOnlyHint || !*a.DestructiveHint || *a.IdempotentHint || !*a.OpenWorldHint) {
					t.Errorf("call_tool's hints are not the most cautious: %+v", tl.Annotations)
				}
			}
			if got := search(t, c, "pay a bill"); len(got) == 0 || got[0] != "pay_invoice" {
				t.Errorf("search for paying a bill: %q", got)
			}
			if got := search(t, c, "send the customer's order"); len(got) == 0 || got[0] != "ship_order" {
				t.Errorf("search for shipping: %q", got)
			}
			if got := search(t, c, "refund a payment"); slices.Contains(got, "refund") {
				t.Errorf("a hidden tool was found: %q", got)
			}
			if res := c.CallTool(ctx, "call_tool", map[string]any{"name": "list_invoices"}); res.IsError {
				t.Errorf("calling list_invoices through call_tool: %+v", res)
			}
			_, err := c.Raw().CallTool(ctx, "call_tool", map[string]any{"name": "refund"})
			if err == nil || !strings.Contains(err.Error(), `unknown tool "refund"`) {
				t.Errorf("calling a hidden tool through call_tool: %v", err)
			}
			res := c.CallTool(ctx, "call_tool", map[string]any{"name": "ship_order", "arguments": map[string]any{"order_id": 0}})
			if !res.IsError || !strings.Contains(string(res.Raw), "order_id") {
				t.Errorf("invalid arguments through call_tool: %s", res.Raw)
			}
			if _, err := c.Raw().CallTool(ctx, "call_tool", map[string]any{"arguments": map[string]any{}}); err == nil {
				t.Error("call_tool without a name was served")
			}
			if _, err := c.Raw().CallTool(ctx, "call_tool", map[string]any{"name": "call_tool"}); err == nil {
				t.Error("call_tool called itself")
			}
		})
	}
	var callLogged bool
	for _, rec := range log.Records(t, "tool call") {
		if rec["tool"] == "call_tool" {
			t.Errorf("the call log names the call tool, not the tool called: %v", rec)
		}
		callLogged = callLogged || rec["tool"] == "list_invoices"
	}
	if !callLogged {
		t.Errorf("no call log record of list_invoices:\n%s", log)
	}
}

func TestDiscoveryModeReadOnlyAndGroups(t *testing.T) {
	t.Parallel()
	s := discoveryServer(t, ferry.ServerOptions{ReadOnly: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{GroupPathValue: "group"}))
	srv := httptest.NewServer(asCaller(mux))
	t.Cleanup(srv.Close)
	for _, era := range versions {
		t.Run(era, func(t *testing.T) {
			c := ferrytest.DialHTTP(t, srv.URL+"/mcp/stock", &ferrytest.Options{Protocol: era,
				Header: http.Header{"X-User": {"ann"}, "X-Roles": {"admin"}}})
			ctx := t.Context()
			if diff := cmp.Diff([]string{"search_tools", "call_tool"}, toolNames(c.ListTools(ctx))); diff != "" {
				t.Errorf("tools/list of /mcp/stock (-want +got):\n%s", diff)
			}
			if got := search(t, c, "ship order"); slices.Contains(got, "ship_order") {
				t.Errorf("a tool that writes was found on a read-only server: %q", got)
			}
			if got := search(t, c, "invoice"); slices.ContainsFunc(got, func(n string) bool { return n != "both" }) {
				t.Errorf("a tool of another group was found: %q", got)
			}
			for _, name := range []string{"ship_order", "pay_invoice", "list_invoices"} {
				_, err := c.Raw().CallTool(ctx, "call_tool", map[string]any{"name": name})
				if err == nil || !strings.Contains(err.Error(), "unknown tool") {
					t.Errorf("calling %s through call_tool: %v", name, err)
				}
			}
			if res := c.CallTool(ctx, "call_tool", map[string]any{"name": "count_stock"}); res.IsError {
				t.Errorf("count_stock: %+v", res)
			}
		})
	}
}

func TestDiscoveryModeCheck(t *testing.T) {
	t.Parallel()
	s := ferry.NewServer("s", "1", &ferry.ServerOptions{Discovery: &ferry.DiscoveryOptions{}})
	s.AddTool(ferry.Tool{Name: "call_tool", Description: "Shadows the call tool."},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "discovery") {
		t.Errorf("Check = %v", err)
	}
}

// The query's bound is counted in characters, as its schema's maxLength
// is: 500 letters of two bytes each are a query, 501 are refused.
func TestDiscoverySearchQueryLengthInCharacters(t *testing.T) {
	c := ferrytest.NewClient(t, discoveryServer(t, ferry.ServerOptions{}), nil)
	ok := c.CallTool(context.Background(), "search_tools", map[string]any{"query": strings.Repeat("é", 500)})
	if ok.IsError {
		t.Errorf("500 characters refused: %v", ok.Content)
	}
	long := c.CallTool(context.Background(), "search_tools", map[string]any{"query": strings.Repeat("é", 501)})
	if !long.IsError {
		t.Error("501 characters accepted")
	}
}

// TestSetDiscovery turns discovery mode on after the tools are
// registered: those and later ones are found.
func TestSetDiscovery(t *testing.T) {
	t.Parallel()
	s := groupedServer(t, nil)
	s.SetDiscovery(&ferry.DiscoveryOptions{Pinned: []string{"loose"}})
	s.SetDiscovery(&ferry.DiscoveryOptions{}) // a second call does nothing
	ferry.AddTool(s, ferry.Tool{Name: "ship_order", Description: "Ships an order to its customer."},
		func(context.Context, struct{}) (string, error) { return "shipped", nil })
	c := ferrytest.NewClient(t, s, nil)
	if diff := cmp.Diff([]string{"search_tools", "call_tool", "loose"}, toolNames(c.ListTools(t.Context()))); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	if got := search(t, c, "count the stock"); len(got) == 0 || got[0] != "count_stock" {
		t.Errorf("a tool registered before: %v", got)
	}
	if got := search(t, c, "ship an order"); len(got) == 0 || got[0] != "ship_order" {
		t.Errorf("a tool registered after: %v", got)
	}
}
