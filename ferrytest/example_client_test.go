package ferrytest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// exampleT stands in for the *testing.T an example has not got: it prints
// failures and runs cleanups when done.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (*exampleT) Helper()                             {}
func (*exampleT) Context() context.Context            { return context.Background() }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (*exampleT) Errorf(format string, args ...any)   { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Fatalf(format string, args ...any) { t.Errorf(format, args...); panic("fatal") }
func (t *exampleT) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

type addIn struct {
	A int `json:"a" doc:"The first term."`
	B int `json:"b" doc:"The second term."`
}

type addOut struct {
	Sum int `json:"sum" doc:"a + b."`
}

func newAdder() *ferry.Server {
	srv := ferry.NewServer("adder", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "add", Description: "Adds two integers.", ReadOnly: true},
		func(_ context.Context, in addIn) (addOut, error) { return addOut{Sum: in.A + in.B}, nil })
	return srv
}

// A unit test calls a tool in memory, with no socket, and gets its
// structured content decoded; the same test runs in a legacy era by
// naming its version.
func ExampleNewClient() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	c := ferrytest.NewClient(t, newAdder(), nil)
	out, _ := ferrytest.Call[addOut](t, c, "add", addIn{A: 2, B: 3})
	fmt.Println(c.Protocol(), out.Sum)

	legacy := ferrytest.NewClient(t, newAdder(), &ferrytest.Options{Protocol: client.Version20251125})
	fmt.Println(legacy.Protocol(), legacy.CallTool(t.Context(), "add", addIn{A: 1, B: 1}).Text())
	// Output:
	// 2026-07-28 5
	// 2025-11-25 {"sum":2}
}

// CheckServer runs the protocol checks against a server in both eras; a
// server that passes reports nothing.
func ExampleCheckServer() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	ferrytest.CheckServer(t, newAdder())
	fmt.Println("checked")
	// Output:
	// checked
}

// GoldenTools keeps tools/list in a file under testdata, so that a change
// of a schema or a description shows up in review; go test -update
// rewrites it.
func ExampleGoldenTools() {
	// In a _test.go file:
	_ = func(t *testing.T) {
		ferrytest.GoldenTools(t, newAdder(), "testdata/tools.json")
	}
}

// CheckHandler runs the same checks against an MCP server's HTTP handler,
// whatever built it: here a Ferry server's, with stateful legacy sessions.
func ExampleCheckHandler() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	ferrytest.CheckHandler(t, ferry.NewHTTPHandler(newAdder(), &ferry.HTTPOptions{Stateful: true}))
	fmt.Println("checked")
	// Output:
	// checked
}

// Call decodes a tool's structured content into the type the test names,
// and returns the result too, for its text or content blocks.
func ExampleCall() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	c := ferrytest.NewClient(t, newAdder(), nil)
	out, res := ferrytest.Call[addOut](t, c, "add", addIn{A: 40, B: 2})
	fmt.Println(out.Sum, res.IsError, res.Text())
	// Output:
	// 42 false {"sum":42}
}

// DialHandler connects to a server behind the application's own
// middleware, here one that wants an API key: Options.Header sends it.
func ExampleDialHandler() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	mcp := ferry.NewHTTPHandler(newAdder(), nil)
	app := http.NewServeMux()
	app.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "k-123" {
			http.Error(w, "an API key is required", http.StatusUnauthorized)
			return
		}
		mcp.ServeHTTP(w, r)
	}))

	c := ferrytest.DialHandler(t, app, &ferrytest.Options{Header: http.Header{"X-Api-Key": {"k-123"}}})
	out, _ := ferrytest.Call[addOut](t, c, "add", addIn{A: 2, B: 2})
	fmt.Println(out.Sum)
	// Output:
	// 4
}

// DialHTTP connects to a server at a URL: one the test started, in
// process as here or as another program.
func ExampleDialHTTP() {
	ts := httptest.NewServer(ferry.NewHTTPHandler(newAdder(), nil))
	defer ts.Close()
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.done()

	c := ferrytest.DialHTTP(t, ts.URL, &ferrytest.Options{Protocol: client.Version20251125})
	fmt.Println(c.Protocol(), c.CallTool(t.Context(), "add", addIn{A: 1, B: 2}).Text())
	// Output:
	// 2025-11-25 {"sum":3}
}
