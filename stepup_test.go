package ferry

import (
	"context"
	"testing"
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

// On a StepUp server, the step-up check of a call of a tool that needs no
// scope allocates nothing: it runs before every HTTP tools/call.
func TestStepUpCheckOfAnOpenToolAllocatesNothing(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{StepUp: true, Visible: func(context.Context, ToolInfo) bool { return true }})
	srv.AddTool(Tool{Name: "open", Description: "Needs nothing.", ReadOnly: true},
		func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	h := NewHTTPHandler(srv, nil)
	req := &request{srv: srv, method: "tools/call"}
	p := &wireParams{Name: "open"}
	ctx := t.Context()
	if n := testing.AllocsPerRun(100, func() { _ = h.stepUpCall(ctx, req, "tools/call", p) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
