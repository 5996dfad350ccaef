package ferry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// Raw JSON a tool hands the server (structured content, a raw schema) may
// hold newlines, as Go's encoder ends its output with one; over stdio each
// message must still be one line, so the server sends it compact.
func TestRawJSONWithNewlinesKeepsStdioMessagesOnOneLine(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "pretty", Description: "Answers pretty JSON.", ReadOnly: true,
		RawInputSchema: json.RawMessage("{\n  \"type\": \"object\"\n}\n")},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("ok")},
				StructuredContent: json.RawMessage("{\n  \"id\": 7,\n  \"name\": \"a b\"\n}\n")}, nil
		})
	srv.AddTool(ferry.Tool{Name: "broken", Description: "Answers bad JSON.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return &ferry.ToolResult{StructuredContent: json.RawMessage(`{"id":`)}, nil
		})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"pretty","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"broken","arguments":{}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines for 4 answers:\n%s", len(lines), out.String())
	}
	byID := map[string]string{}
	for _, l := range lines {
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not one JSON message: %s", l)
		}
		byID[string(m.ID)] = l
	}
	if !strings.Contains(byID["2"], `"inputSchema":{"type":"object"}`) {
		t.Errorf("tools/list: %s", byID["2"])
	}
	if !strings.Contains(byID["3"], `"structuredContent":{"id":7,"name":"a b"}`) {
		t.Errorf("tools/call: %s", byID["3"])
	}
	if !strings.Contains(byID["4"], "the tool failed unexpectedly (ref ") || !strings.Contains(byID["4"], `"isError":true`) {
		t.Errorf("bad structured content answered %s", byID["4"])
	}
}
