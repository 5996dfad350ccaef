package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
	"github.com/ferry-mcp/ferry/schema"
)

// The route benchmarks measure what binding a tool to a route costs. Four
// measurements of the same work, cancelling an order:
//
//   - Direct: the service's mux serves a pre-built POST
//     /orders/{id}/cancel, as net/http would hand it over;
//   - Call: the MCP call itself: a Ferry tool with the same input schema
//     (arguments validated) that answers the service's JSON as it is,
//     through Ferry's HTTP handler (2026-07-28, stateless);
//   - Plain: a typed Ferry tool that does the handler's work in Go, for
//     comparison;
//   - Bound: a route-bound tool serves the same tools/call through the mux.
//
// Bound's time over Direct + Call is the binding's overhead (the target is
// at most 1.3x), and its allocations beyond Direct + Call are the
// binding's (the target is at most 15). Every request, body and response
// writer is reused, so allocs/op counts only the handlers'.
//
//	go test -run '^$' -bench Route -benchmem -count 5 -cpu 1

// cancelIn is the arguments of cancelling an order.
type cancelIn struct {
	ID     string `json:"id" doc:"The order to cancel."`
	Reason string `json:"reason" doc:"Why it is cancelled."`
}

// cancelOut is the service's answer.
type cancelOut struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// cancelOrder is the work both the service and the plain tool do.
func cancelOrder(id, reason string) cancelOut {
	return cancelOut{ID: id, Status: "cancelled", Reason: reason}
}

// routeService is the service: one route on a ServeMux, reading a JSON
// body and answering JSON.
func routeService() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Reason string `json:"reason"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(cancelOrder(r.PathValue("id"), in.Reason))
	})
	return mux
}

// routeCall is the benchmarked tools/call.
const routeCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cancel_order",` +
	`"arguments":{"id":"A-1042","reason":"duplicate"},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// The tools of the measurements.
const (
	plainTool = iota
	callTool
	boundTool
)

// answerJSON is the service's answer, as the call measurement returns it.
var answerJSON = []byte(`{"id":"A-1042","status":"cancelled","reason":"duplicate"}`)

func routeServer(kind int) http.Handler {
	srv := ferry.NewServer("bench", "1.0.0", benchOptions())
	tool := ferry.Tool{Name: "cancel_order", Description: "Cancels an order that has not shipped."}
	switch kind {
	case boundTool:
		route.AddTool[cancelIn](route.New(srv, routeService(), nil), tool, "POST /orders/{id}/cancel")
	case callTool:
		in, err := schema.For[cancelIn](nil)
		if err != nil {
			panic(err)
		}
		tool.InputSchema = in
		srv.AddTool(tool, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			text := string(answerJSON) // what a result of the service's answer copies
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(text)}, StructuredContent: json.RawMessage(text)}, nil
		})
	default:
		ferry.AddTool(srv, tool, func(_ context.Context, in cancelIn) (cancelOut, error) {
			return cancelOrder(in.ID, in.Reason), nil
		})
	}
	return ferry.NewHTTPHandler(srv, nil)
}

// reused serves one request again and again with its body and writer
// reset.
type reused struct {
	h    http.Handler
	req  *http.Request
	body body
	data []byte
	w    recorder
}

func newReused(h http.Handler, method, url string, hdr http.Header, data string) *reused {
	req, err := http.NewRequestWithContext(context.Background(), method, url, nil)
	if err != nil {
		panic(err)
	}
	req.Header, req.Host, req.RemoteAddr = hdr, "127.0.0.1:8080", "127.0.0.1:50000"
	req.RequestURI = req.URL.RequestURI()
	req.ContentLength = int64(len(data))
	return &reused{h: h, req: req, data: []byte(data), w: recorder{header: http.Header{}}}
}

func (r *reused) serve() {
	r.w.reset()
	r.body.Reset(r.data)
	r.req.Body = &r.body
	r.h.ServeHTTP(&r.w, r.req)
}

func (r *reused) bench(b *testing.B, check func(tb testing.TB, body []byte)) {
	r.serve()
	if r.w.code != http.StatusOK {
		b.Fatalf("HTTP %d: %s", r.w.code, r.w.body.Bytes())
	}
	check(b, r.w.body.Bytes())
	b.ReportAllocs()
	for b.Loop() {
		r.serve()
	}
	if r.w.code != http.StatusOK {
		b.Fatalf("HTTP %d", r.w.code)
	}
}

func mcpRouteHeader() http.Header {
	return http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2026-07-28"},
		"Mcp-Method":           {"tools/call"},
		"Mcp-Name":             {"cancel_order"},
		"Authorization":        {"Bearer bench-token"},
	}
}

// checkAnswer checks the service's answer.
func checkAnswer(tb testing.TB, body []byte) {
	tb.Helper()
	want := `{"id":"A-1042","status":"cancelled","reason":"duplicate"}`
	if string(bytes.TrimSpace(body)) != want {
		tb.Fatalf("answer %s, want %s", body, want)
	}
}

// checkResult checks a tools/call result carrying the service's answer.
func checkResult(tb testing.TB, body []byte) {
	tb.Helper()
	var msg struct {
		Result struct {
			StructuredContent cancelOut
			IsError           bool
		}
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Result.IsError ||
		msg.Result.StructuredContent != cancelOrder("A-1042", "duplicate") {
		tb.Fatalf("result %s (%v)", body, err)
	}
}

func BenchmarkRoute(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		hdr := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer bench-token"}}
		newReused(routeService(), "POST", "http://127.0.0.1:8080/orders/A-1042/cancel", hdr, `{"reason":"duplicate"}`).
			bench(b, checkAnswer)
	})
	b.Run("call", func(b *testing.B) {
		newReused(routeServer(callTool), "POST", "http://127.0.0.1:8080/mcp", mcpRouteHeader(), routeCall).bench(b, checkResult)
	})
	b.Run("plain", func(b *testing.B) {
		newReused(routeServer(plainTool), "POST", "http://127.0.0.1:8080/mcp", mcpRouteHeader(), routeCall).bench(b, checkResult)
	})
	b.Run("bound", func(b *testing.B) {
		newReused(routeServer(boundTool), "POST", "http://127.0.0.1:8080/mcp", mcpRouteHeader(), routeCall).bench(b, checkResult)
	})
}

// TestRouteBenchmarkCallsAgree checks that the three measurements do the
// same work: the bound tool's result is the service's answer.
func TestRouteBenchmarkCallsAgree(t *testing.T) {
	for _, kind := range []int{plainTool, callTool, boundTool} {
		r := newReused(routeServer(kind), "POST", "http://127.0.0.1:8080/mcp", mcpRouteHeader(), routeCall)
		r.serve()
		checkResult(t, r.w.body.Bytes())
	}
}
