package ferry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

type auditIn struct {
	Note   string           `json:"note"`
	Caller *ferry.Principal `json:"-"`
	Who    *ferry.Principal `json:"who"` // a tag does not make it an argument
}

// A typed tool's *Principal fields are the caller, set by the server:
// they are not in the schema, and a client that sends one gets the answer
// any unknown argument gets, the handler not run. The call log names the
// subject, and CallInfo still works.
func TestTypedToolTakesThePrincipal(t *testing.T) {
	srv, logs := newLogged(t, &ferry.ServerOptions{})
	var got []*ferry.Principal
	ferry.AddTool(srv, ferry.Tool{Name: "audit", Description: "Notes who called."}, func(ctx context.Context, in auditIn) (string, error) {
		got = append(got, in.Caller, in.Who)
		if info, ok := ferry.CallInfoFromContext(ctx); !ok || info.Tool != "audit" {
			t.Errorf("CallInfo = %+v, %v", info, ok)
		}
		return "noted " + in.Note, nil
	})
	schemas := list(t, srv)[0]["inputSchema"].(map[string]any)
	if props := schemas["properties"].(map[string]any); len(props) != 1 || props["note"] == nil {
		t.Errorf("input schema: %v", schemas)
	}
	ann := &ferry.Principal{Subject: "ann"}
	run := func(p *ferry.Principal, args string) string {
		c := ferrytest.NewClient(t, srv, &ferrytest.Options{Principal: p})
		return string(c.CallTool(t.Context(), "audit", json.RawMessage(args)).Raw)
	}
	if out := run(ann, `{"note":"hi"}`); !strings.Contains(out, "noted hi") {
		t.Fatalf("call: %s", out)
	}
	if len(got) != 2 || got[0] != ann || got[1] != ann {
		t.Errorf("principal fields = %v, want ann twice", got)
	}
	if rec := logs.callRecord(t); rec["principal"] != "ann" {
		t.Errorf("call log: %v", rec)
	}
	got = nil
	if out := run(nil, `{"note":"anon"}`); !strings.Contains(out, "noted anon") || len(got) != 2 || got[0] != nil || got[1] != nil {
		t.Errorf("anonymous call: %s, fields %v", out, got)
	}
	got = nil
	for _, args := range []string{`{"note":"x","who":{"Subject":"root","Roles":["admin"]}}`, `{"note":"x","Caller":{"Subject":"root"}}`} {
		out := run(nil, args)
		if !strings.Contains(out, `"isError":true`) || !strings.Contains(out, "invalid arguments") || got != nil {
			t.Errorf("injected %s: %s (handler saw %v)", args, out, got)
		}
	}
}
