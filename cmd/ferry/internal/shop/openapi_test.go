package shop

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/openapi"
	"github.com/ferry-mcp/ferry/route"
	"github.com/google/go-cmp/cmp"
)

// openapiShop is a shop whose order tools are derived from openapi.yaml,
// bound to the shop's REST API as the hand-bound ones are: a server of
// their own, beside a fresh shop, which its API serves.
func openapiShop(t *testing.T) *ferry.Server {
	t.Helper()
	svc, _, _ := newTestService(t)
	doc, err := openapi.Load(t.Context(), "openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The API as New assembles it: its routes behind its key middleware.
	mux := http.NewServeMux()
	(&API{store: svc.Store, logger: svc.logger}).Routes(mux)
	api := requireKey(svc.keys, svc.logger, mux)
	srv := ferry.NewServer("shop-openapi", "1.0.0", &ferry.ServerOptions{Logger: svc.logger})
	ro := &route.Options{Router: route.ServeMux(mux), Forward: []string{"X-API-Key"}}
	if _, err := openapi.Bind(srv, api, doc, &openapi.Options{ClosedWorld: true}, ro); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return srv
}

// dialShop connects a client to srv's MCP endpoint in the protocol
// given, with the test key.
func dialShop(t *testing.T, srv *ferry.Server, protocol string) *client.Client {
	t.Helper()
	c, err := client.DialHandler(t.Context(), ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}),
		&client.Options{Protocol: protocol, Header: map[string][]string{"Authorization": {"Bearer " + testKey}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// The order tools derived from the shop's OpenAPI document give the same
// answers as its hand-bound route tools for the same calls, in both
// eras: results, structured content, the service's refusals and the
// server's own argument checks, over two shops seeded alike.
func TestOpenAPIToolsAnswerAsTheHandBoundOnes(t *testing.T) {
	// The calls, in order: each changes what the next ones see. The
	// hand-bound place_order names its Idempotency-Key header
	// idempotency_key; the derived tool names it as the document does.
	script := []struct{ tool, args string }{
		{"list_orders", `{"limit":2}`},
		{"get_order", `{"id":1}`},
		{"get_order", `{"id":999999}`},
		{"get_order", `{"id":0}`},
		{"list_orders", `{"status":"lost","limit":500}`},
		{"place_order", `{"customer_id":1,"lines":[{"sku":"TEA-003","qty":2}],"idempotency_key":"k-1"}`},
		{"place_order", `{"customer_id":1,"lines":[{"sku":"TEA-003","qty":2}],"idempotency_key":"k-1"}`},
		{"place_order", `{"customer_id":1,"lines":[{"sku":"NOPE-1","qty":0},{"sku":"XXX-999","qty":1}]}`},
		{"place_order", `{"customer_id":1,"lines":[{"sku":"XXX-999","qty":1}]}`},
		{"list_orders", `{"customer_id":1,"status":"placed"}`},
		{"ship_order", `{"id":1}`},
		{"cancel_order", `{"id":1,"reason":"changed my mind"}`},
		{"cancel_order", `{"id":2}`},
		{"order_history", `{"id":2}`},
		{"cancel_order", `{"id":3,"reason":"` + strings.Repeat("x", 201) + `"}`},
	}
	derivedArgs := func(args string) string {
		return strings.Replace(args, `"idempotency_key"`, `"Idempotency-Key"`, 1)
	}
	for _, protocol := range []string{client.Version20260728, "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			hand, _, _ := newTestService(t)
			handC := dialShop(t, hand.MCP, protocol)
			derivedC := dialShop(t, openapiShop(t), protocol)
			for i, step := range script {
				want, err := handC.CallTool(t.Context(), step.tool, json.RawMessage(step.args))
				if err != nil {
					t.Fatalf("%d %s (hand-bound): %v", i, step.tool, err)
				}
				got, err := derivedC.CallTool(t.Context(), step.tool, json.RawMessage(derivedArgs(step.args)))
				if err != nil {
					t.Fatalf("%d %s (derived): %v", i, step.tool, err)
				}
				if diff := cmp.Diff(answer(t, want), answer(t, got)); diff != "" {
					t.Errorf("%d %s %s: the derived tool answers otherwise (-hand-bound +derived):\n%s", i, step.tool, step.args, diff)
				}
			}
		})
	}
}

// answer is what a model reads of a result: its text, structured
// content and whether it is an error.
func answer(t *testing.T, r *client.ToolResult) map[string]any {
	t.Helper()
	a := map[string]any{"text": r.Text(), "isError": r.IsError}
	if len(r.StructuredContent) > 0 {
		var v any
		if err := json.Unmarshal(r.StructuredContent, &v); err != nil {
			t.Fatal(err)
		}
		a["structured"] = v
	}
	return a
}
