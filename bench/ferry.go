package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/ferry-mcp/ferry"
)

// ferryImpl serves the tools with Ferry's raw tool API.
func ferryImpl() (Impl, bool) {
	return Impl{
		Name: "ferry",
		Handler: func(stateful bool) http.Handler {
			return ferry.NewHTTPHandler(newFerryServer(), &ferry.HTTPOptions{Stateful: stateful})
		},
		ServeStdio: func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
			return newFerryServer().Run(ctx, &ferry.IOTransport{Reader: r, Writer: w})
		},
	}, true
}

func newFerryServer() *ferry.Server {
	srv := ferry.NewServer("bench", "1.0.0", nil)
	srv.AddTool(ferry.Tool{
		Name:         "add",
		Description:  AddDescription,
		InputSchema:  AddInputSchema,
		OutputSchema: AddOutputSchema,
	}, func(_ context.Context, req *ferry.CallToolRequest) (*ferry.Result, error) {
		out, text, err := Add(req.Arguments)
		if err != nil {
			return nil, err
		}
		return &ferry.Result{
			Content:           []ferry.Content{&ferry.TextContent{Text: text}},
			StructuredContent: out,
		}, nil
	})
	srv.AddTool(ferry.Tool{
		Name:        "echo",
		Description: EchoDescription,
		InputSchema: EchoInputSchema,
	}, func(_ context.Context, req *ferry.CallToolRequest) (*ferry.Result, error) {
		var in EchoInput
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		return &ferry.Result{Content: []ferry.Content{&ferry.TextContent{Text: in.Text}}}, nil
	})
	return srv
}
