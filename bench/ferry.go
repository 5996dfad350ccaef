package bench

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"

	"github.com/ferry-mcp/ferry"
)

// ferryImpl serves the tools with Ferry's raw tool API.
func ferryImpl() Impl { return ferryServing("ferry", newFerryServer) }

// ferryServing serves the tools of a new Ferry server over HTTP or stdio.
func ferryServing(name string, newServer func() *ferry.Server) Impl {
	return Impl{
		Name: name,
		Handler: func(stateful bool) http.Handler {
			return ferry.NewHTTPHandler(newServer(), &ferry.HTTPOptions{Stateful: stateful})
		},
		ServeStdio: func(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
			return newServer().Run(ctx, &ferry.IOTransport{Reader: r, Writer: w})
		},
	}
}

func newFerryServer() *ferry.Server {
	srv := ferry.NewServer("bench", "1.0.0", benchOptions())
	srv.AddTool(ferry.Tool{
		Name:            "add",
		Description:     AddDescription,
		RawInputSchema:  AddInputSchema,
		RawOutputSchema: AddOutputSchema,
	}, func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		out, text, err := Add(req.Arguments)
		if err != nil {
			return nil, err
		}
		return &ferry.ToolResult{
			Content:           []ferry.Content{&ferry.TextContent{Text: text}},
			StructuredContent: out,
		}, nil
	})
	srv.AddTool(ferry.Tool{
		Name:           "echo",
		Description:    EchoDescription,
		RawInputSchema: EchoInputSchema,
	}, func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		var in EchoInput
		if err := json.Unmarshal(req.Arguments, &in); err != nil {
			return nil, err
		}
		return &ferry.ToolResult{Content: []ferry.Content{&ferry.TextContent{Text: in.Text}}}, nil
	})
	return srv
}

// ferryTypedImpl serves the same tools with Ferry's typed API: schemas from
// Go types, and every call's arguments validated before the handler runs.
func ferryTypedImpl() Impl { return ferryServing("ferrytyped", newFerryTypedServer) }

func newFerryTypedServer() *ferry.Server {
	srv := ferry.NewServer("bench", "1.0.0", benchOptions())
	ferry.AddTool(srv, ferry.Tool{Name: "add", Description: AddDescription},
		func(_ context.Context, in AddInput) (AddOutput, error) { return AddOutput{Sum: in.A + in.B}, nil })
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Description: EchoDescription},
		func(_ context.Context, in EchoInput) (string, error) { return in.Text, nil })
	return srv
}

// benchOptions are the servers' options: the load comes from one
// anonymous caller far faster than the per-caller limits allow, so they
// are off; the call timeout keeps its default, so its cost is measured.
func benchOptions() *ferry.ServerOptions {
	return &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1}, Logger: slog.New(slog.DiscardHandler)}
}
