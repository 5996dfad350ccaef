package ferry_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

type routeIn struct {
	ID string `json:"id" doc:"The order."`
}

// On a read-only server a tool bound to a route that is not GET or HEAD
// is hidden and refused as unknown in both eras: the service's handler
// never sees the write. A GET route is served.
func TestReadOnlyServerHidesRouteBoundWrites(t *testing.T) {
	var writes atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"id":"1"}`)) })
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		mux.HandleFunc(m+" /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
			writes.Add(1)
			_, _ = w.Write([]byte(`{"written":true}`))
		})
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, ReadOnly: true})
	api := route.New(srv, mux, nil)
	route.AddTool[routeIn](api, ferry.Tool{Name: "show_order", Description: "Shows an order."}, "GET /orders/{id}")
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		route.AddTool[routeIn](api, ferry.Tool{Name: strings.ToLower(m) + "_order", Description: "Writes an order."}, m+" /orders/{id}")
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		if got := e.send(t, ts.URL, "tools/call", "show_order", `"name":"show_order","arguments":{"id":"1"}`); strings.Contains(got.body, "unknown tool") {
			t.Errorf("%s: the GET route: %s", e.name, got.body)
		}
		for _, m := range []string{"post", "put", "patch", "delete"} {
			name := m + "_order"
			got := e.send(t, ts.URL, "tools/call", name, `"name":"`+name+`","arguments":{"id":"1"}`)
			if !strings.Contains(got.body, `unknown tool \"`+name+`\"`) {
				t.Errorf("%s: %s: %s", e.name, name, got.body)
			}
		}
		if list := e.send(t, ts.URL, "tools/list", "", ""); strings.Contains(list.body, "post_order") || !strings.Contains(list.body, "show_order") {
			t.Errorf("%s: tools/list: %s", e.name, list.body)
		}
	}
	if writes.Load() != 0 {
		t.Errorf("the service saw %d writes", writes.Load())
	}
}
