package ferry_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

// An http.Server serving a Ferry handler shuts down handler first: new
// requests get 503, streams end, running calls get the drain time to
// finish; then the http.Server closes its connections.
func ExampleShutdownHTTPServer() {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "ping_db", Description: "Checks the database."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("ok")}}, nil
	})
	h := ferry.NewHTTPHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	ctx, stop := context.WithCancel(context.Background()) // signal.NotifyContext in a service
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		drain, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		stopped <- ferry.ShutdownHTTPServer(drain, hs, h)
	}()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	stop() // the signal
	fmt.Println("shutdown:", <-stopped)
	fmt.Println("serve:", <-served)
	// Output:
	// shutdown: <nil>
	// serve: http: Server closed
}

// Server.Shutdown drains what Run serves: a request read after it began
// is refused, the running ones finish, and Run returns nil.
func ExampleServer_Shutdown() {
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	in, client := io.Pipe()
	out, server := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &ferry.IOTransport{Reader: in, Writer: server}) }()
	answers := bufio.NewScanner(out)
	_, _ = io.WriteString(client, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	answers.Scan() // Run serves the connection
	fmt.Println(answers.Text())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // the drain time
	defer cancel()
	go func() { _, _ = io.Copy(io.Discard, out) }()
	fmt.Println("shutdown:", srv.Shutdown(ctx))
	fmt.Println("run:", <-done)
	client.Close()
	out.Close()
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{}}
	// shutdown: <nil>
	// run: <nil>
}

// countingObserver counts the requests by method.
type countingObserver struct{ methods chan string }

func (o countingObserver) Start(ctx context.Context, _ *ferry.RequestInfo) context.Context {
	return ctx
}

func (o countingObserver) End(_ context.Context, info *ferry.RequestInfo, end ferry.RequestEnd) {
	o.methods <- fmt.Sprintf("%s %s id=%s transport=%s error=%d tool_error=%v", info.Method, info.Name, info.ID, info.Transport, end.ErrorCode, end.ToolError)
}

// An Observer is told of every request; the otelferry module makes
// OpenTelemetry spans and metrics this way.
func ExampleObserver() {
	obs := countingObserver{methods: make(chan string, 8)}
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Observer: obs, Logger: slog.New(slog.DiscardHandler)})
	srv.AddTool(ferry.Tool{Name: "cancel_order", Description: "Cancels an order."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return nil, ferry.Refuse(ferry.RefusalNotFound, "no order 7")
	})
	lines := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":"c-2","method":"tools/call","params":{"name":"cancel_order","arguments":{"id":7}}}` + "\n"
	if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(lines), Writer: io.Discard}); err != nil {
		fmt.Println(err)
	}
	close(obs.methods)
	for m := range obs.methods {
		fmt.Println(m)
	}
	// Output:
	// initialize  id=1 transport=stdio error=0 tool_error=false
	// tools/call cancel_order id=c-2 transport=stdio error=0 tool_error=true
}
