package ferry_test

import (
	"context"
	"log/slog"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A tool's own Timeout replaces the server's CallTimeout for its calls.
func ExampleTool_timeout() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: time.Minute}})
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks a customer up.", ReadOnly: true, Timeout: 20 * time.Millisecond},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-ctx.Done() // a backend that does not answer
			return nil, ctx.Err()
		})
	exampleStdio(srv, nil, modernCall("lookup", "{}"))
	// Output:
	// unavailable: the tool timed out after 20ms
}
