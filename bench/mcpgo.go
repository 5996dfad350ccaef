package bench

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// mcpgoImpl serves the tools with mark3labs/mcp-go, binding arguments with
// its own helper as its users do.
func mcpgoImpl() Impl {
	return Impl{
		Name: "mcpgo",
		Handler: func(stateful bool) http.Handler {
			opts := []server.StreamableHTTPOption{
				server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)),
				server.WithStateLess(!stateful),
				server.WithStateful(stateful),
			}
			return server.NewStreamableHTTPServer(newMCPGoServer(), opts...)
		},
		ServeStdio: func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
			return server.NewStdioServer(newMCPGoServer()).Listen(ctx, r, w)
		},
	}
}

func newMCPGoServer() *server.MCPServer {
	srv := server.NewMCPServer("bench", "1.0.0", server.WithToolCapabilities(false))
	add := mcp.NewToolWithRawSchema("add", AddDescription, AddInputSchema)
	add.RawOutputSchema = AddOutputSchema
	srv.AddTool(add, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in AddInput
		if err := req.BindArguments(&in); err != nil {
			return nil, err
		}
		out := AddOutput{Sum: in.A + in.B}
		text, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultStructured(out, string(text)), nil
	})
	echo := mcp.NewToolWithRawSchema("echo", EchoDescription, EchoInputSchema)
	srv.AddTool(echo, func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in EchoInput
		if err := req.BindArguments(&in); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(in.Text), nil
	})
	return srv
}
