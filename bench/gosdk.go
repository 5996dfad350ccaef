package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gosdkImpl serves the tools with the official Go SDK, using its raw
// (untyped) tool handlers so that it does the same work as the others.
func gosdkImpl() Impl {
	return Impl{
		Name: "gosdk",
		Handler: func(stateful bool) http.Handler {
			srv := newGoSDKServer()
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
				&mcp.StreamableHTTPOptions{Stateless: !stateful, JSONResponse: true})
		},
		ServeStdio: func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
			return newGoSDKServer().Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
		},
	}
}

func newGoSDKServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	srv.AddTool(&mcp.Tool{
		Name:         "add",
		Description:  AddDescription,
		InputSchema:  AddInputSchema,
		OutputSchema: AddOutputSchema,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, text, err := Add(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: out,
		}, nil
	})
	srv.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: EchoDescription,
		InputSchema: EchoInputSchema,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in EchoInput
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
	})
	return srv
}
