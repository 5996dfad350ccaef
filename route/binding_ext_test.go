package route_test

import (
	"encoding/json"
	"testing"

	"github.com/ferry-mcp/ferry"
)

func TestHintsFollowTheMethodAndTheCatalogAnswers(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	b.AddTool(ferry.Tool{Name: "archive_order", Description: "Archives an order.", Additive: true,
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}, "DELETE /orders/{id}")
	b.AddTool(ferry.Tool{Name: "retry_note", Description: "Adds a note once.", Idempotent: true, Additive: true}, "POST /notes")
	m.serve(t)
	type hints struct{ ReadOnly, Destructive, Idempotent, Writes bool }
	want := map[string]hints{
		"get_order":     {ReadOnly: true, Idempotent: true},
		"cancel_order":  {Destructive: true, Writes: true},
		"replace_order": {Destructive: true, Idempotent: true, Writes: true},
		"delete_order":  {Destructive: true, Idempotent: true, Writes: true},
		"archive_order": {Idempotent: true, Writes: true},
		"retry_note":    {Idempotent: true, Writes: true},
	}
	cat := m.srv.Catalog()
	for name, w := range want {
		// An authorizer in front of the endpoint reads the tool a body names.
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
		names, err := ferry.ParseToolCalls([]byte(body))
		if err != nil || len(names) != 1 {
			t.Fatalf("ParseToolCalls: %v %v", names, err)
		}
		info, ok := cat.Lookup(names[0])
		if !ok {
			t.Fatalf("%s is not in the catalog", name)
		}
		got := hints{info.ReadOnly, info.Destructive, info.Idempotent, info.Writes()}
		if got != w {
			t.Errorf("%s: hints %+v, want %+v", name, got, w)
		}
	}
}
