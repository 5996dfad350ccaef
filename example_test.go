package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ferry-mcp/ferry"
)

func newEchoServer() *ferry.Server {
	srv := ferry.NewServer("example", "1.0.0", nil)
	srv.AddTool(ferry.Tool{
		Name:           "echo",
		Description:    "Returns its text.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in struct{ Text string }
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return ferry.NewErrorResult("text: expected a string"), nil
		}
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(in.Text)}}, nil
	})
	return srv
}

// A tool served over stdio-style lines: a legacy session opened with
// initialize, then a call.
func ExampleServer_Run() {
	srv := newEchoServer()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}
`)
	var out bytes.Buffer
	if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: in, Writer: &out}); err != nil {
		fmt.Println(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fmt.Println(lines[len(lines)-1])
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}
}

// The HTTP handler answers a modern (2026-07-28) request with no session
// and no handshake.
func ExampleNewHTTPHandler() {
	ts := httptest.NewServer(ferry.NewHTTPHandler(newEchoServer(), nil))
	defer ts.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},
	  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "echo")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var msg struct {
		Result struct {
			ResultType string `json:"resultType"`
			Content    []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &msg)
	fmt.Println(resp.StatusCode, msg.Result.ResultType, msg.Result.Content[0].Text)
	// Output:
	// 200 complete hi
}

// A handler may ask the user a question. In the modern era the call
// returns input_required and the client retries with the answer (and the
// signed request state); in a stateful legacy session the question travels
// on the call's stream instead.
func ExampleElicit() {
	srv := ferry.NewServer("example", "1.0.0", nil)
	srv.AddTool(ferry.Tool{Name: "delete_all", Description: "Deletes everything, after asking."},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			ans, err := ferry.Elicit(ctx, &ferry.ElicitParams{
				Message:         "Really delete everything?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`),
			})
			if err != nil {
				return nil, err
			}
			if ans.Action != "accept" || ans.Content["ok"] != true {
				return ferry.NewErrorResult("not confirmed: nothing was deleted"), nil
			}
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("deleted")}}, nil
		})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()

	call := func(extra string) map[string]any {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_all"` + extra + `,
		  "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "delete_all")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var msg struct{ Result map[string]any }
		_ = json.NewDecoder(resp.Body).Decode(&msg)
		return msg.Result
	}
	first := call("")
	questions := first["inputRequests"].(map[string]any)
	for key, q := range questions {
		fmt.Println(first["resultType"], key, q.(map[string]any)["method"])
	}
	state, _ := json.Marshal(first["requestState"])
	second := call(`,"inputResponses":{"q1":{"action":"accept","content":{"ok":true}}},"requestState":` + string(state))
	fmt.Println(second["resultType"], second["content"].([]any)[0].(map[string]any)["text"])
	// Output:
	// input_required q1 elicitation/create
	// complete deleted
}

// A typed tool: the input schema comes from the struct's tags, and a call
// that does not fit gets every violation back, so the model can correct it.
func ExampleAddTool() {
	type searchIn struct {
		Query string `json:"query" doc:"Text to search for." minLength:"1"`
		Limit int    `json:"limit,omitzero" doc:"At most this many." minimum:"1" maximum:"50"`
	}
	srv := ferry.NewServer("example", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "search", Description: "Searches the catalogue.", ReadOnly: true},
		func(ctx context.Context, in searchIn) ([]string, error) {
			return []string{"result for " + in.Query}, nil
		})

	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"","limit":"80"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"rome","limit":"5"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
`)
	var out bytes.Buffer
	_ = srv.Run(context.Background(), &ferry.IOTransport{Reader: in, Writer: &out})
	answers := map[float64]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     float64
			Result struct{ Content []struct{ Text string } }
		}
		_ = json.Unmarshal([]byte(line), &msg)
		answers[msg.ID] = msg.Result.Content[0].Text
	}
	fmt.Println(answers[1])
	fmt.Println(answers[2])
	// Output:
	// invalid arguments:
	// - query: must be at least 1 character, got 0
	// - limit: must be at most 50, got 80
	// ["result for rome"]
}

// Refusals reach the model as "code: message", a sentence it can act on.
func ExampleNotFound() {
	err := ferry.NotFound("No order A-9; use search_orders to find its id.")
	fmt.Println(err)
	// Output: not-found: No order A-9; use search_orders to find its id.
}
