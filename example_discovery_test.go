package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// Discovery mode: tools/list carries the search and call tools (and the
// pinned ones), and the model finds the rest by searching.
func ExampleDiscoveryOptions() {
	srv := ferry.NewServer("shop", "1.0.0", &ferry.ServerOptions{
		Discovery: &ferry.DiscoveryOptions{Pinned: []string{"list_invoices"}},
	})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("done")), nil
	}
	srv.AddTool(ferry.Tool{Name: "pay_invoice", Description: "Pays an invoice."}, ok)
	srv.AddTool(ferry.Tool{Name: "list_invoices", Description: "Lists invoices.", ReadOnly: true}, ok)
	srv.AddTool(ferry.Tool{Name: "count_stock", Description: "Counts the stock of an item.", ReadOnly: true}, ok)
	hs := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer hs.Close()

	post := func(method, name, params string) string {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+
			`","params":{`+params+`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	_ = json.Unmarshal([]byte(post("tools/list", "", "")), &list)
	for _, t := range list.Result.Tools {
		fmt.Println("listed:", t.Name)
	}
	var found struct {
		Result struct {
			StructuredContent struct{ Tools []struct{ Name string } }
		}
	}
	_ = json.Unmarshal([]byte(post("tools/call", "search_tools", `"name":"search_tools","arguments":{"query":"how many items are in stock"},`)), &found)
	fmt.Println("found:", found.Result.StructuredContent.Tools[0].Name)
	fmt.Println(strings.Contains(post("tools/call", "call_tool", `"name":"call_tool","arguments":{"name":"count_stock"},`), `"text":"done"`))
	// Output:
	// listed: search_tools
	// listed: call_tool
	// listed: list_invoices
	// found: count_stock
	// true
}
