package ferry_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

// Replicas that share a relaying session store serve any request of a
// stateful session: here a session opened on replica A subscribes on
// replica B, and an update made on B would reach A's GET stream. A
// [ferry.MemorySessionStore] relays within one process; replicas in
// several processes share the Redis store of module
// github.com/ferry-mcp/ferry/redisstore the same way.
func ExampleSessionRelay() {
	store := &ferry.MemorySessionStore{}
	replica := func() *ferry.HTTPHandler {
		srv := ferry.NewServer("docs", "1.0.0", nil)
		srv.AddResource(ferry.Resource{URI: "doc://readme", Name: "readme"}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: "hello"}}, nil
		})
		return ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	}
	a, b := replica(), replica()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.Shutdown(ctx) // unsubscribes from the store's relay
		_ = b.Shutdown(ctx)
	}()

	send := func(h *ferry.HTTPHandler, session, body string) (int, string) {
		req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Header().Get("Mcp-Session-Id")
	}
	_, id := send(a, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	status, _ := send(b, id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"doc://readme"}}`)
	fmt.Println("subscribed on B:", status)
	st, err := store.Load(context.Background(), id)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored:", st.Subscriptions)
	// Output:
	// subscribed on B: 200
	// stored: [doc://readme]
}
