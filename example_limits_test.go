package ferry_test

import (
	"context"
	"log/slog"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A call that outlives CallTimeout reads as timed out. The handler must
// heed its context: the call is answered when the handler returns.
func ExampleLimits_callTimeout() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallTimeout: 20 * time.Millisecond}})
	srv.AddTool(ferry.Tool{Name: "report", Description: "Builds a report slowly.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	exampleStdio(srv, nil, modernCall("report", "{}"))
	// Output:
	// unavailable: the tool timed out after 20ms
}

// Each caller may make CallRate calls a second on average, CallBurst at
// once, and have MaxCallsPerCaller in flight; every anonymous stdio
// client is one caller.
func ExampleLimits_callRate() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.DiscardHandler), Limits: ferry.Limits{CallRate: 0.5, CallBurst: 2, MaxCallsPerCaller: 4}})
	srv.AddTool(ferry.Tool{Name: "ping", Description: "Answers.", ReadOnly: true}, done)
	exampleStdio(srv, nil, modernCall("ping", "{}"), modernCall("ping", "{}"), modernCall("ping", "{}"))
	exampleStdio(srv, &ferry.Principal{Subject: "ada"}, modernCall("ping", "{}"))
	// Output:
	// done
	// done
	// unavailable: too many calls: a caller may make 0.5 a second, bursts of 2 (CallRate, CallBurst); retry in 2s, or have the server's operator raise the limit (ferry serve: -call-rate, -call-burst)
	// done
}

// A message that nests deeper than MaxJSONDepth is refused before it is
// decoded.
func ExampleLimits_maxJSONDepth() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Limits: ferry.Limits{MaxJSONDepth: 8}, Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Echoes.", ReadOnly: true}, done)
	exampleStdio(srv, nil, modernCall("echo", `{"v":[[[[]]]]}`), modernCall("echo", `{"v":[[[[[[]]]]]]}`))
	// Output:
	// done
	// parse error: the message nests arrays and objects more than 8 levels deep
}
