package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// ledgerMethods are tools AddMethods registers: none is marked read-only.
type ledgerMethods struct{ runs *atomic.Int32 }

type bookIn struct {
	Amount int `json:"amount"`
}

func (l *ledgerMethods) Book(_ context.Context, in bookIn) (string, error) {
	l.runs.Add(1)
	return "booked", nil
}

func (l *ledgerMethods) FerryTools() map[string]ferry.Tool {
	return map[string]ferry.Tool{"Book": {Name: "book", Description: "Books an amount."}}
}

// Every way a write tool could still be reached on a read-only server
// reaches none: a 2025-03-26 batch, a legacy session, a modern request, a
// tool registered by AddMethods and one added after serving started, and
// stdio. Each answers as an unknown tool, and no write handler runs.
func TestReadOnlyServerRunsNoWriteToolByAnyPath(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, ReadOnly: true,
		ProtocolVersions: []string{"2026-07-28", "2025-11-25", "2025-03-26"}})
	write := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("wrote")), nil
	}
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks up.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("read")), nil
		})
	srv.AddTool(ferry.Tool{Name: "erase", Description: "Erases.", Additive: true, Idempotent: true}, write)
	ferry.AddMethods(srv, &ledgerMethods{&runs})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	call := func(name string) string { return `"name":"` + name + `","arguments":{"amount":1}` }
	check := func(what, body string) {
		t.Helper()
		if strings.Contains(body, "wrote") || strings.Contains(body, "booked") || !strings.Contains(body, "unknown tool") {
			t.Errorf("%s: %s", what, body)
		}
	}
	// Added after serving: the HTTP handler has started it.
	srv.AddTool(ferry.Tool{Name: "late", Description: "Writes late."}, write)
	for _, name := range []string{"erase", "book", "late"} {
		for _, e := range eras {
			check(e.name+"/"+name, e.send(t, ts.URL, "tools/call", name, call(name)).body)
		}
	}
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
	batch := send(t, ts.URL, `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+call("lookup")+`}},`+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+call("erase")+`}},`+
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{`+call("book")+`}}]`,
		"Mcp-Session-Id", init.header.Get("Mcp-Session-Id"))
	if strings.Count(batch.body, "unknown tool") != 2 || !strings.Contains(batch.body, `"text":"read"`) {
		t.Errorf("batch: %s", batch.body)
	}
	var out strings.Builder
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + call("book") + `,` + modernMeta + `}}` + "\n"
	_ = srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out})
	check("stdio", out.String())
	if runs.Load() != 0 {
		t.Errorf("%d write handlers ran", runs.Load())
	}
}
