package ferry_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// Putting tools in groups, listing the groups, and serving each group at
// its own endpoint, /mcp/{group}, besides the whole catalog at /mcp.
func ExampleServer_Groups() {
	srv := ferry.NewServer("shop", "1.0.0", nil)
	srv.DescribeGroup("billing", "Invoices and payments.")
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("done")), nil
	}
	srv.AddTool(ferry.Tool{Name: "pay_invoice", Description: "Pays an invoice.", Groups: []string{"billing"}}, ok)
	srv.AddTool(ferry.Tool{Name: "list_invoices", Description: "Lists invoices.", ReadOnly: true, Groups: []string{"billing"}}, ok)
	srv.AddTool(ferry.Tool{Name: "count_stock", Description: "Counts stock.", ReadOnly: true, Groups: []string{"stock"}}, ok)

	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(srv, nil))
	mux.Handle("/mcp/{group}", ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{GroupPathValue: "group"}))

	for _, g := range srv.Groups() {
		fmt.Printf("/mcp/%s: %d tools %q\n", g.Name, g.Tools, g.Description)
	}
	// Output:
	// /mcp/billing: 2 tools "Invoices and payments."
	// /mcp/stock: 1 tools ""
}

// A layer that wraps an application's handler gives its entry the group
// of the application's package, as registering it directly would.
func ExampleGroupOfFunc() {
	fmt.Println(ferry.GroupOfFunc(strings.ToUpper))
	// Output:
	// strings
}
