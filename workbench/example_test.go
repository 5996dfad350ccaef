package workbench_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/workbench"
)

// The workbench beside the MCP endpoint, with a trace of the calls. The
// trace is served to authenticated callers; here a stand-in middleware
// makes every request the caller "ada", where a server would use its
// MCP endpoint's authentication (auth.Middleware).
func ExampleNew() {
	trace := workbench.NewTrace(nil)
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Observer: trace})
	ferry.AddTool(srv, ferry.Tool{Name: "count_orders", Description: "Counts the orders.", ReadOnly: true},
		func(context.Context, struct{}) (int, error) { return 42, nil })
	mcp := ferry.NewHTTPHandler(srv, nil)
	authn := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: "ada"})))
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", authn(mcp))
	workbench.New(mcp, &workbench.Options{Title: "orders", Trace: trace, Server: srv, Auth: authn}).Mount(mux, "/ui")

	ts := httptest.NewServer(mux)
	defer ts.Close()
	get := func(path string) string {
		res, err := http.Get(ts.URL + path)
		if err != nil {
			return err.Error()
		}
		defer res.Body.Close()
		var b [512]byte
		n, _ := res.Body.Read(b[:])
		return string(b[:n])
	}
	fmt.Println(get("/ui/config.json"))

	// A call from any client shows in the trace.
	c, err := client.DialHTTP(context.Background(), ts.URL+"/mcp", &client.Options{Name: "example-agent", Version: "1"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if _, err := c.CallTool(context.Background(), "count_orders", nil); err != nil {
		fmt.Println(err)
	}
	for _, e := range trace.Events(0) {
		fmt.Println(e.Seq, e.Method, e.Name, e.Caller, e.Outcome)
	}
	// Output:
	// {"title":"orders","endpoint":"/mcp","trace":"trace","catalog":"catalog.json","protocolVersion":"2026-07-28"}
	// 1 tools/call count_orders ada ok
}

// A trace beside another observer: Join tells both of every request.
// Here the other one counts requests; otelferry's would make spans.
func ExampleJoin() {
	trace := workbench.NewTrace(&workbench.TraceOptions{Size: 100})
	counter := &counting{}
	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Observer: workbench.Join(trace, counter)})
	ferry.AddTool(srv, ferry.Tool{Name: "find_order", Description: "Finds an order.", ReadOnly: true},
		func(_ context.Context, in struct {
			ID int `json:"id"`
		}) (struct{}, error) {
			return struct{}{}, ferry.NotFound(fmt.Sprintf("no order %d", in.ID))
		})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer ts.Close()
	c, err := client.DialHTTP(context.Background(), ts.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	_, _ = c.ListTools(context.Background())
	_, _ = c.CallTool(context.Background(), "find_order", map[string]any{"id": 7})

	// The trace keeps calls only; the counter saw every request.
	for _, e := range trace.Events(0) {
		fmt.Printf("%s %s: %s %s %q\n", e.Method, e.Name, e.Outcome, e.Code, e.Message)
	}
	fmt.Println(counter.n.Load() >= 2)
	// Output:
	// tools/call find_order: refused not-found "no order 7"
	// true
}

// counting is an observer that counts the requests it is told of.
type counting struct{ n atomic.Int64 }

func (c *counting) Start(ctx context.Context, _ *ferry.RequestInfo) context.Context { return ctx }

func (c *counting) End(context.Context, *ferry.RequestInfo, ferry.RequestEnd) { c.n.Add(1) }
