package otelferry_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/otelferry"
)

// A server observed by otelferry makes a span per request. Here the spans
// go to an in-memory exporter; a service exports them with OTLP, and may
// leave the providers nil to use the global ones.
func ExampleNew() {
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	obs, err := otelferry.New(&otelferry.Options{TracerProvider: tp})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Observer: obs, Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "find_order", Description: "Finds an order."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("order 7: shipped")}}, nil
	})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"find_order","arguments":{"id":7},` +
		`"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}` + "\n"
	if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: io.Discard}); err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range exporter.GetSpans() {
		fmt.Print(s.Name)
		if s.Parent.IsRemote() { // the client's span, from params._meta
			fmt.Printf(", child of the client's span %s in trace %s", s.Parent.SpanID(), s.Parent.TraceID())
		}
		fmt.Println()
		for _, kv := range s.Attributes {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
		}
	}
	// Output:
	// initialize
	//   mcp.method.name=initialize
	//   jsonrpc.request.id=1
	//   mcp.protocol.version=2025-06-18
	//   network.transport=pipe
	// tools/call find_order, child of the client's span 00f067aa0ba902b7 in trace 4bf92f3577b34da6a3ce929d0e0e4736
	//   mcp.method.name=tools/call
	//   gen_ai.tool.name=find_order
	//   gen_ai.operation.name=execute_tool
	//   jsonrpc.request.id=2
	//   mcp.protocol.version=2025-06-18
	//   network.transport=pipe
}
