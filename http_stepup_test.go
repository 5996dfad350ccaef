package ferry

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// The challenge leaves out offline_access and empty parameters, and no
// value can end its parameter or split the header.
func TestChallengeFormat(t *testing.T) {
	tests := []struct {
		scopes         []string
		metadata, desc string
		want           string
	}{
		{[]string{"a", "offline_access", "b"}, "https://x/m", "d",
			`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/m", error_description="d"`},
		{[]string{"offline_access"}, "", "",
			`Bearer error="insufficient_scope"`},
		{[]string{"a"}, "", "say \"hi\"\\\r\nX-Evil: 1\u00e9",
			`Bearer error="insufficient_scope", scope="a", error_description="say \"hi\"\\??X-Evil: 1??"`},
	}
	for _, tt := range tests {
		if got := challenge(tt.scopes, tt.metadata, tt.desc); got != tt.want {
			t.Errorf("challenge(%q, %q, %q) =\n%s\nwant\n%s", tt.scopes, tt.metadata, tt.desc, got, tt.want)
		}
	}
}

// On a StepUp server with a Visible hook, resolving a call of a tool that
// needs no scope (its access judged, step-up included) allocates nothing:
// it runs before every tools/call.
func TestResolvingACallOfAnOpenToolAllocatesNothing(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{StepUp: true, Visible: func(context.Context, ToolInfo) bool { return true }})
	srv.AddTool(Tool{Name: "open", Description: "Needs nothing.", ReadOnly: true},
		func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	req := newRequest(t.Context(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: "tools/call"}, &wireParams{Name: "open"}, peer{})
	if n := testing.AllocsPerRun(100, func() { req.target, req.err = target{}, nil; srv.resolve(req) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	if req.err != nil || req.target.tool == nil || req.target.access != accessOK {
		t.Errorf("resolved to %+v, %v; want the tool, served", req.target, req.err)
	}
}
