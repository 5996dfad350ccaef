package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// The discovery benchmarks measure discovery mode (ServerOptions.Discovery)
// through Ferry's HTTP handler, 2026-07-28, stateless:
//
//   - Search10k: search_tools over a catalog of 10,000 tools (latency and
//     allocations of one search);
//   - Direct: a tools/call of a typed tool in that catalog;
//   - Via: the same call through call_tool (the target is at most 1.1x
//     Direct). Compare allocations and time; instructions counted as
//     route_instr.sh does are swamped here by the 10,000 tools' set-up,
//     which differs from run to run.
//
//	go test -run '^$' -bench Discovery -benchmem -count 5 -cpu 1

// discoveryCatalog returns a handler of a server in discovery mode with n
// tools: n/5 entities of five operations each.
func discoveryCatalog(n int) http.Handler {
	opts := benchOptions()
	opts.Discovery = &ferry.DiscoveryOptions{}
	srv := ferry.NewServer("bench", "1.0.0", opts)
	ops := []struct{ verb, desc string }{
		{"list", "Lists the %s records, newest first, a page at a time."},
		{"get", "Returns one %s record by its id."},
		{"create", "Creates a %s record from its fields."},
		{"update", "Changes the fields of a %s record."},
		{"delete", "Deletes a %s record for good."},
	}
	for i := range n / len(ops) {
		entity := fmt.Sprintf("entity%d", i)
		for _, op := range ops {
			ferry.AddTool(srv, ferry.Tool{Name: op.verb + "_" + entity, Description: fmt.Sprintf(op.desc, entity),
				ReadOnly: op.verb == "list" || op.verb == "get", Groups: []string{entity}},
				func(_ context.Context, in cancelIn) (cancelOut, error) {
					return cancelOrder(in.ID, in.Reason), nil
				})
		}
	}
	return ferry.NewHTTPHandler(srv, nil)
}

func discoveryHeader(name string) http.Header {
	h := mcpRouteHeader()
	h["Mcp-Name"] = []string{name}
	return h
}

const (
	discoverySearch = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools",` +
		`"arguments":{"query":"change the fields of entity1234"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	discoveryDirect = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_entity7",` +
		`"arguments":{"id":"A-1042","reason":"duplicate"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	discoveryVia = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"call_tool",` +
		`"arguments":{"name":"get_entity7","arguments":{"id":"A-1042","reason":"duplicate"}},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
)

func BenchmarkDiscovery(b *testing.B) {
	h := discoveryCatalog(10_000)
	contains := func(want string) func(testing.TB, []byte) {
		return func(tb testing.TB, body []byte) {
			tb.Helper()
			if !bytes.Contains(body, []byte(want)) || bytes.Contains(body, []byte(`"isError":true`)) {
				tb.Fatalf("answer %s, want %s in it", body, want)
			}
		}
	}
	b.Run("search10k", func(b *testing.B) {
		newReused(h, http.MethodPost, "/mcp", discoveryHeader("search_tools"), discoverySearch).bench(b, contains(`"name":"update_entity1234"`))
	})
	b.Run("direct", func(b *testing.B) {
		newReused(h, http.MethodPost, "/mcp", discoveryHeader("get_entity7"), discoveryDirect).bench(b, contains(`cancelled`))
	})
	b.Run("via", func(b *testing.B) {
		newReused(h, http.MethodPost, "/mcp", discoveryHeader("call_tool"), discoveryVia).bench(b, contains(`cancelled`))
	})
}
