package ferry_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/google/go-cmp/cmp"
)

// versions are a version of each era, for clients of both.
var versions = []string{client.Version20260728, client.Version20251125}

func toolNames(tools []client.Tool) []string {
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}

// groupEndpoint is what one group endpoint must serve of groupedServer.
type groupEndpoint struct {
	tools, prompts, resources     []string
	templates, otherTool, otherPr string
	otherURI, otherTemplate       string
}

func TestHTTPGroupEndpoints(t *testing.T) {
	t.Parallel()
	s := groupedServer(t, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Stateful: true}))
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Stateful: true, GroupPathValue: "group"}))
	mux.Handle("/billing", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{Groups: []string{"billing"}}))
	srv := httptest.NewServer(asCaller(mux))
	t.Cleanup(srv.Close)

	billing := groupEndpoint{
		tools: []string{"both", "list_invoices", "pay_invoice"}, prompts: []string{"dunning"},
		resources: []string{"shop://billing/terms"}, templates: "shop://invoices/{id}",
		otherTool: "count_stock", otherPr: "restock", otherURI: "shop://stock/levels", otherTemplate: "shop://items/{sku}",
	}
	stock := groupEndpoint{
		tools: []string{"both", "count_stock"}, prompts: []string{"restock"},
		resources: []string{"shop://stock/levels"}, templates: "shop://items/{sku}",
		otherTool: "pay_invoice", otherPr: "dunning", otherURI: "shop://billing/terms", otherTemplate: "shop://invoices/{id}",
	}
	endpoints := []struct {
		name string
		path string
		want groupEndpoint
	}{
		{"option", "/billing", billing},
		{"path", "/mcp/billing", billing},
		{"path stock", "/mcp/stock", stock},
	}
	for _, era := range versions {
		for _, ep := range endpoints {
			t.Run(era+" "+ep.name, func(t *testing.T) {
				t.Parallel()
				c := ferrytest.DialHTTP(t, srv.URL+ep.path, &ferrytest.Options{Protocol: era})
				ctx := t.Context()
				w := ep.want
				if diff := cmp.Diff(w.tools, toolNames(c.ListTools(ctx))); diff != "" {
					t.Errorf("tools (-want +got):\n%s", diff)
				}
				var prompts, resources, templates []string
				for _, p := range c.ListPrompts(ctx) {
					prompts = append(prompts, p.Name)
				}
				for _, r := range c.ListResources(ctx) {
					resources = append(resources, r.URI)
				}
				for _, r := range c.ListResourceTemplates(ctx) {
					templates = append(templates, r.URITemplate)
				}
				if diff := cmp.Diff([][]string{w.prompts, w.resources, {w.templates}}, [][]string{prompts, resources, templates}); diff != "" {
					t.Errorf("prompts, resources, templates (-want +got):\n%s", diff)
				}
				raw := c.Raw()
				// Everything outside the group reads as what does not exist.
				if _, err := raw.CallTool(ctx, w.otherTool, nil); err == nil || !strings.Contains(err.Error(), "unknown tool") {
					t.Errorf("calling %s: %v", w.otherTool, err)
				}
				if _, err := raw.CallTool(ctx, "loose", nil); err == nil || !strings.Contains(err.Error(), "unknown tool") {
					t.Errorf("calling an ungrouped tool: %v", err)
				}
				if res := c.CallTool(ctx, w.tools[0], nil); res.IsError {
					t.Errorf("calling %s: %+v", w.tools[0], res)
				}
				if _, err := raw.GetPrompt(ctx, w.otherPr, nil); err == nil {
					t.Errorf("getting prompt %s worked", w.otherPr)
				}
				if _, err := raw.ReadResource(ctx, w.otherURI); err == nil {
					t.Errorf("reading %s worked", w.otherURI)
				}
				if _, err := raw.Complete(ctx, &client.CompleteRequest{RefType: "ref/prompt", Name: w.otherPr, Argument: "x"}); err == nil {
					t.Errorf("completing an argument of %s worked", w.otherPr)
				}
				if _, err := raw.Complete(ctx, &client.CompleteRequest{RefType: "ref/resource", URI: w.otherTemplate, Argument: "x"}); err == nil {
					t.Errorf("completing a variable of %s worked", w.otherTemplate)
				}
				if got := c.ReadResource(ctx, w.resources[0]); len(got.Contents) != 1 {
					t.Errorf("reading %s: %+v", w.resources[0], got)
				}
			})
		}
	}
}

func TestHTTPGroupEndpointsKeepVisibility(t *testing.T) {
	t.Parallel()
	s := groupedServer(t, &ferry.ServerOptions{ReadOnly: true})
	mux := http.NewServeMux()
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{GroupPathValue: "group"}))
	srv := httptest.NewServer(asCaller(mux))
	t.Cleanup(srv.Close)
	for _, era := range versions {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			// ReadOnly hides pay_invoice and refund; refund also needs admin.
			admin := ferrytest.DialHTTP(t, srv.URL+"/mcp/billing", &ferrytest.Options{Protocol: era,
				Header: http.Header{"X-User": {"ann"}, "X-Roles": {"admin"}}})
			if diff := cmp.Diff([]string{"both", "list_invoices"}, toolNames(admin.ListTools(t.Context()))); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if _, err := admin.Raw().CallTool(t.Context(), "pay_invoice", nil); err == nil || !strings.Contains(err.Error(), "unknown tool") {
				t.Errorf("a tool that writes on a read-only server: %v", err)
			}
		})
	}
	s2 := groupedServer(t, nil)
	mux2 := http.NewServeMux()
	mux2.Handle("/mcp/{group}", ferry.NewHTTPHandler(s2, &ferry.HTTPOptions{GroupPathValue: "group"}))
	srv2 := httptest.NewServer(asCaller(mux2))
	t.Cleanup(srv2.Close)
	anon := ferrytest.DialHTTP(t, srv2.URL+"/mcp/billing", nil)
	if slices.Contains(toolNames(anon.ListTools(t.Context())), "refund") {
		t.Error("a tool that needs a role is listed to an anonymous caller of its group")
	}
	admin := ferrytest.DialHTTP(t, srv2.URL+"/mcp/billing", &ferrytest.Options{Header: http.Header{"X-User": {"ann"}, "X-Roles": {"admin"}}})
	if !slices.Contains(toolNames(admin.ListTools(t.Context())), "refund") {
		t.Error("an admin does not see refund in its group")
	}
}

func TestHTTPGroupEndpointUnknownGroup(t *testing.T) {
	t.Parallel()
	s := groupedServer(t, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{GroupPathValue: "group"}))
	mux.Handle("/only/{group}", ferry.NewHTTPHandler(s, &ferry.HTTPOptions{GroupPathValue: "group", Groups: []string{"stock"}}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, path := range []string{"/mcp/nosuch", "/mcp/a%20b", "/only/billing"} {
		got := send(t, srv.URL+path, body)
		if got.status != http.StatusNotFound || !strings.Contains(got.body, "no such group") {
			t.Errorf("%s: %d %s", path, got.status, got.body)
		}
	}
	if got := send(t, srv.URL+"/mcp/a%20b", body); strings.Contains(got.body, "a b") {
		t.Errorf("the error repeats the path as sent: %s", got.body)
	}
}

func TestNewHTTPHandlerBadGroup(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "HTTPOptions.Groups") {
			t.Errorf("recovered %v", r)
		}
	}()
	ferry.NewHTTPHandler(ferry.NewServer("s", "1", nil), &ferry.HTTPOptions{Groups: []string{"a b"}})
}
