package ferry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

// A typed tool's structured content is json.Marshal's output, compact
// and valid: it is sent as it is, not scanned a second time on every
// call. The marker is seen here by giving it bytes a scan would change.
func TestEncodedStructuredContentIsNotScannedAgain(t *testing.T) {
	raw := json.RawMessage(`{"a": 1}`)
	res := &ToolResult{StructuredContent: raw}
	res.markEncoded(raw)
	b, err := res.appendMembers(nil, false)
	if err != nil || !strings.Contains(string(b), `"structuredContent":{"a": 1}`) {
		t.Errorf("got %s, %v; want the encoded bytes as they are", b, err)
	}
	// Equal bytes elsewhere are someone else's: compacted and checked.
	res.StructuredContent = json.RawMessage(`{"a": 1}`)
	if b, _ = res.appendMembers(nil, false); !strings.Contains(string(b), `"structuredContent":{"a":1}`) {
		t.Errorf("got %s; want compacted raw JSON that is not the server's", b)
	}
}

// The typed path marks what it encoded, and only that.
func TestTypedResultMarksItsEncoding(t *testing.T) {
	spec := &typedSpec{out: outStructured}
	res, err := spec.result(struct{ N int }{7})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := res.StructuredContent.(json.RawMessage)
	if !res.encodedAs(raw) {
		t.Errorf("structured content %s not marked as the server's encoding", raw)
	}
}

// A middleware that replaces a typed tool's structured content with raw
// JSON of its own gets it compacted and checked, as any tool's: over
// stdio the answer stays one line.
func TestMiddlewareRawJSONOverTypedResultIsCompacted(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler),
		ToolMiddleware: []ToolMiddleware{func(next ToolHandler) ToolHandler {
			return func(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
				res, err := next(ctx, req)
				if res != nil {
					res.StructuredContent = json.RawMessage("{\n \"n\": 8\n}\n")
				}
				return res, err
			}
		}}})
	AddTool(srv, Tool{Name: "n", Description: "Answers a number.", ReadOnly: true},
		func(context.Context, struct{}) (struct{ N int }, error) { return struct{ N int }{7}, nil })
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"n","arguments":{}}}
`
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"structuredContent":{"n":8}`) {
		t.Errorf("answers:\n%s\nwant two lines, the call's with the middleware's JSON compacted", out.String())
	}
}
