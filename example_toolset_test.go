package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// Legacy toolsets: a legacy session starts with the toolset tool and the
// groups of ToolsetOptions.Enabled, and enables the others as its task
// needs them; it is told that its lists changed.
func ExampleToolsetOptions() {
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{
		Toolsets: &ferry.ToolsetOptions{Enabled: []string{"billing"}},
	})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("done")), nil
	}
	srv.DescribeGroup("stock", "Items and their stock.")
	srv.AddTool(ferry.Tool{Name: "pay_invoice", Description: "Pays an invoice.", Groups: []string{"billing"}}, ok)
	srv.AddTool(ferry.Tool{Name: "count_stock", Description: "Counts the stock of an item.", Groups: []string{"stock"}}, ok)

	ctx := context.Background()
	c, err := client.DialHandler(ctx, ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}), &client.Options{
		Protocol: ferry.Version20251125,
		Notify:   func(method string, _ json.RawMessage) { fmt.Println("told:", method) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	show := func() {
		tools, _ := c.ListTools(ctx)
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		fmt.Println(strings.Join(names, " "))
	}
	show()
	res, _ := c.CallTool(ctx, "toolsets", map[string]any{"enable": []string{"stock"}, "disable": []string{"billing"}})
	fmt.Print(res.Text())
	show()
	// Output:
	// toolsets pay_invoice
	// told: notifications/tools/list_changed
	// billing (disabled): 1 tools, 0 prompts, 0 resources
	// stock (enabled): 1 tools, 0 prompts, 0 resources. Items and their stock.
	// toolsets count_stock
}
