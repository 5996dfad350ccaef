package interop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKClientGroupEndpoint connects the go-sdk client to a group's
// own endpoint (/mcp/{group}), in both eras: it lists exactly the group's
// tools, calls one of them, and a tool of another group is unknown to it.
func TestGoSDKClientGroupEndpoint(t *testing.T) {
	srv := ferry.NewServer("shop", "1", nil)
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("done")), nil
	}
	srv.AddTool(ferry.Tool{Name: "pay_invoice", Description: "Pays an invoice.", Groups: []string{"billing"}}, ok)
	srv.AddTool(ferry.Tool{Name: "list_invoices", Description: "Lists invoices.", ReadOnly: true, Groups: []string{"billing"}}, ok)
	srv.AddTool(ferry.Tool{Name: "count_stock", Description: "Counts stock.", ReadOnly: true, Groups: []string{"stock"}}, ok)
	mux := http.NewServeMux()
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{GroupPathValue: "group", Stateful: true}))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	for _, version := range []string{"", v20250618} {
		t.Run(stdcmpOr(version, modernVersion), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "ferry-interop", Version: "v0.0.0"}, nil)
			var opts *mcp.ClientSessionOptions
			if version != "" {
				opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
			}
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp/billing"}, opts)
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if diff := cmp.Diff([]string{"list_invoices", "pay_invoice"}, names); diff != "" {
				t.Errorf("tools of /mcp/billing (-want +got):\n%s", diff)
			}
			if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay_invoice", Arguments: map[string]any{}}); err != nil || r.IsError {
				t.Errorf("pay_invoice: %+v, %v", r, err)
			}
			if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "count_stock", Arguments: map[string]any{}}); err == nil && !r.IsError {
				t.Errorf("count_stock of another group was served: %+v", r)
			}
		})
	}
}
