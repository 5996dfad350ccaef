package redisstore

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// TestToolsetsAcrossReplicas chooses a legacy session's toolsets on one
// replica and lists on another: the choice lives in the shared store.
func TestToolsetsAcrossReplicas(t *testing.T) {
	t.Parallel()
	a := newTestStore(t, Options{})
	b := New(testClient(t), &Options{Prefix: strings.TrimSuffix(a.channel, "relay")})
	t.Cleanup(func() { _ = b.Close() })
	replica := func(store *Store) http.Handler {
		srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Toolsets: &ferry.ToolsetOptions{}})
		ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("ok")), nil
		}
		srv.AddTool(ferry.Tool{Name: "pay_invoice", Description: "Pays an invoice.", Groups: []string{"billing"}}, ok)
		srv.AddTool(ferry.Tool{Name: "count_stock", Description: "Counts stock.", Groups: []string{"stock"}}, ok)
		return ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	}
	ha, hb := replica(a), replica(b)
	var onB atomic.Bool // which replica serves the next request
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if onB.Load() {
			hb.ServeHTTP(w, r)
		} else {
			ha.ServeHTTP(w, r)
		}
	})
	var mu sync.Mutex
	var heard []string
	c, err := client.DialHandler(t.Context(), h, &client.Options{Protocol: ferry.Version20251125,
		Notify: func(method string, _ json.RawMessage) {
			mu.Lock()
			heard = append(heard, method)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	list := func() []string {
		t.Helper()
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
		}
		return names
	}
	if got := list(); !slices.Equal(got, []string{"toolsets"}) {
		t.Fatalf("tools at the start: %v", got)
	}
	res, err := c.CallTool(ctx, "toolsets", map[string]any{"enable": []string{"stock"}})
	if err != nil || res.IsError {
		t.Fatalf("enabling stock on replica a: %v %v", res, err)
	}
	mu.Lock()
	if !slices.Equal(heard, []string{"notifications/tools/list_changed"}) {
		t.Errorf("notifications: %v", heard)
	}
	mu.Unlock()
	onB.Store(true)
	if got := list(); !slices.Equal(got, []string{"toolsets", "count_stock"}) {
		t.Fatalf("tools on replica b: %v", got)
	}
	if res, err := c.CallTool(ctx, "toolsets", map[string]any{"enable": []string{"billing"}, "disable": []string{"stock"}}); err != nil || res.IsError {
		t.Fatalf("choosing on replica b: %v %v", res, err)
	}
	onB.Store(false)
	if got := list(); !slices.Equal(got, []string{"toolsets", "pay_invoice"}) {
		t.Fatalf("tools back on replica a: %v", got)
	}
	if res, err := c.CallTool(ctx, "count_stock", nil); err == nil && !res.IsError {
		t.Fatal("a tool of a disabled group was called on replica a")
	}
}
