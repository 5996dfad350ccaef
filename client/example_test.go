package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// A client connected in process to a Ferry server's HTTP handler, with no
// socket: it negotiates the modern era, lists the tools and calls one.
func ExampleDialHandler() {
	srv := ferry.NewServer("shop", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Description: "Returns its text.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) { return echoOut{Echo: in.Text}, nil })

	ctx := context.Background()
	c, err := client.DialHandler(ctx, ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "hi"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Protocol(), c.ServerInfo().Name, len(tools), tools[0].Name)
	fmt.Println(string(res.StructuredContent))
	// Output:
	// 2026-07-28 shop 1 echo
	// {"echo":"hi"}
}

// Forcing a legacy version opens a session with initialize instead.
func ExampleOptions_protocol() {
	srv := ferry.NewServer("shop", "1.0.0", nil)
	c, err := client.DialHandler(context.Background(), ferry.NewHTTPHandler(srv, nil), &client.Options{Protocol: client.Version20250618})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fmt.Println(c.Protocol(), c.Modern())
	// Output:
	// 2025-06-18 false
}

// A client over Streamable HTTP, with a header on every request (here
// against a test server; in a program, the server's /mcp URL).
func ExampleDialHTTP() {
	srv := ferry.NewServer("shop", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Description: "Returns its text.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) { return echoOut{Echo: in.Text}, nil })
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()

	ctx := context.Background()
	c, err := client.DialHTTP(ctx, ts.URL, &client.Options{
		Header: http.Header{"Authorization": {"Bearer example-token"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "over HTTP"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Protocol(), res.IsError, res.Text())
	// Output:
	// 2026-07-28 false {"echo":"over HTTP"}
}

// A client of a server run as a child process on stdin and stdout. Here the
// child is this test binary serving the package's test server; in a program
// it is the server's command, such as exec.Command("ferry", "demo", "--stdio").
func ExampleDialCommand() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stdioEnv+"=all")

	ctx := context.Background()
	c, err := client.DialCommand(ctx, cmd, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close() // closes the child's stdin and waits for it to exit
	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "over stdio"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.ServerInfo().Name, res.Text())
	// Output:
	// client-test {"echo":"over stdio"}
}
