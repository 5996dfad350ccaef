package main

import (
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry/examples/internal/exampletest"
)

// Handlers run concurrently: searches and cancellations from many clients
// at once must not race on the orders (go test -race).
func TestToolsAreSafeForConcurrentCalls(t *testing.T) {
	shop := &Shop{orders: []Order{
		{ID: "A-1", Customer: "Ada Lovelace", Status: "open"},
		{ID: "A-2", Customer: "Alan Turing", Status: "shipped"},
	}}
	url := exampletest.Serve(t, newServer(shop, slog.New(slog.DiscardHandler)))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { exampletest.Call(t, url, "cancel_order", `{"id":"A-1"}`) })
		wg.Go(func() { exampletest.Call(t, url, "search_orders", `{"query":"a"}`) })
	}
	wg.Wait()
	if got := exampletest.Call(t, url, "search_orders", `{"query":"ada"}`); !strings.Contains(got, `"status":"cancelled"`) {
		t.Errorf("after the cancellations, search_orders answers %s", got)
	}
}
