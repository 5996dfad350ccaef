package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
)

// A tool whose input schema is built at run time (here by hand; a table's
// columns or a protobuf descriptor would do) gets the same checks as a
// typed tool: the handler runs only with arguments that fit, coerced and
// with defaults filled in.
func ExampleServer_AddTool_runtimeSchema() {
	limit := schema.Integer("At most this many.")
	limit.Maximum, limit.Default = new(50.0), json.RawMessage("10")
	in := schema.Object(
		schema.Required("query", schema.ID("Text to search for.")),
		schema.Optional("limit", limit),
	)
	srv := ferry.NewServer("search", "1.0.0", nil)
	srv.AddTool(ferry.Tool{Name: "search", Description: "Searches.", ReadOnly: true, InputSchema: in},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("got " + string(req.Arguments))), nil
		})

	calls := []string{`{"query":"rome","limit":"5"}`, `{"query":"rome"}`, `{"query":"","limit":99}`}
	var lines strings.Builder
	for i, args := range calls {
		fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":%s,`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", i+1, args)
	}
	var out bytes.Buffer
	if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(lines.String()), Writer: &out}); err != nil {
		fmt.Println(err)
	}
	answers := map[float64]string{}
	for line := range strings.Lines(out.String()) {
		var msg struct {
			ID     float64
			Result struct{ Content []struct{ Text string } }
		}
		_ = json.Unmarshal([]byte(line), &msg)
		answers[msg.ID] = msg.Result.Content[0].Text
	}
	for i := range calls {
		fmt.Println(answers[float64(i+1)])
	}
	// Output:
	// got {"query":"rome","limit":5}
	// got {"query":"rome","limit":10}
	// invalid arguments:
	// - query: must be at least 1 character, got 0
	// - limit: must be at most 50, got 99
}

// A package that decodes arguments further than the schema can say (into
// a protobuf message, say) answers in the same format as the server.
func ExampleNewInvalidArgumentsResult() {
	res := ferry.NewInvalidArgumentsResult(schema.Errors{
		{Path: "items[3].name", Message: "must be at most 20 characters, got 23"},
		{Path: "when", Message: "must not be in the past"},
	})
	fmt.Println(res.IsError)
	fmt.Println(res.Content[0].(*ferry.TextContent).Text)
	// Output:
	// true
	// invalid arguments:
	// - items[3].name: must be at most 20 characters, got 23
	// - when: must not be in the past
}

// A name derived from data is checked before it becomes a tool's.
func ExampleValidToolName() {
	for _, name := range []string{"list_orders", "list order items"} {
		fmt.Println(ferry.ValidToolName(name))
	}
	// Output:
	// <nil>
	// ferry: tool "list order items": name has ' '; use only A-Z, a-z, 0-9, '_', '-' and '.'
}
