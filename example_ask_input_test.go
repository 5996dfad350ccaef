package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// A handler names its question, so that the client answers it under a key
// that means something; here over stdio lines in the modern era.
func ExampleWithInputKey() {
	srv := ferry.NewServer("example", "1.0.0", nil)
	srv.AddTool(ferry.Tool{Name: "greet", Description: "Asks the user's name, then greets."},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			ans, err := ferry.Elicit(ferry.WithInputKey(ctx, "user_name"), &ferry.ElicitParams{
				Message:         "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return nil, err
			}
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(fmt.Sprintf("Hello, %v!", ans.Content["name"]))}}, nil
		})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	// Each line is its own exchange: the second is the client's retry.
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet",` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},` + meta + `}}`,
	} {
		var out bytes.Buffer
		if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(line + "\n"), Writer: &out}); err != nil {
			fmt.Println(err)
		}
		var msg struct {
			ID     int
			Result struct {
				ResultType    string
				InputRequests map[string]struct{ Method string }
				Content       []struct{ Text string }
			}
		}
		_ = json.Unmarshal(out.Bytes(), &msg)
		for key, q := range msg.Result.InputRequests {
			fmt.Println(msg.ID, msg.Result.ResultType, key, q.Method)
		}
		for _, c := range msg.Result.Content {
			fmt.Println(msg.ID, msg.Result.ResultType, c.Text)
		}
	}
	// Output:
	// 1 input_required user_name elicitation/create
	// 2 complete Hello, Ada!
}
