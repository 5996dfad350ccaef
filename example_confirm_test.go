package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// A server that confirms destructive calls asks the client's user before
// delete_order runs. In the 2026-07-28 era the first call is answered
// with the question (input_required); the client shows it to its user and
// retries with the answer and the request state, which binds the answer
// to this call. Here over stdio lines: a decline, then an accept.
func ExampleServerOptions_confirm() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Confirm: true})
	srv.AddTool(ferry.Tool{Name: "delete_order", Title: "Delete order", Description: "Deletes an order for good.",
		Summarize: func(_ context.Context, req *ferry.CallToolRequest) (string, error) {
			return "The order and its lines are deleted; the customer is not told.", nil
		}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("deleted")), nil
		})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	call := func(extra string) (res struct {
		ResultType    string
		InputRequests map[string]struct{ Params ferry.ElicitParams }
		RequestState  string
		Content       []struct{ Text string }
	}) {
		line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_order","arguments":{"id":42}` + extra + `,` + meta + `}}`
		var out strings.Builder
		if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(line + "\n"), Writer: &out}); err != nil {
			fmt.Println(err)
		}
		var msg struct{ Result json.RawMessage }
		_ = json.Unmarshal([]byte(out.String()), &msg)
		_ = json.Unmarshal(msg.Result, &res)
		return res
	}
	first := call("")
	fmt.Println(first.ResultType)
	fmt.Println(first.InputRequests[ferry.ConfirmKey].Params.Message)
	answer := func(action string) string {
		state, _ := json.Marshal(first.RequestState)
		return `,"inputResponses":{"` + ferry.ConfirmKey + `":{"action":"` + action + `"}},"requestState":` + string(state)
	}
	fmt.Println(call(answer("decline")).Content[0].Text)
	fmt.Println(call(answer("accept")).Content[0].Text)
	// Output:
	// input_required
	// Allow "Delete order" (delete_order) to run?
	// Arguments: id=42
	// The order and its lines are deleted; the customer is not told.
	// declined: the user declined "Delete order" (delete_order); the tool did not run. Do not call it again unless the user asks for it.
	// deleted
}
