package ferry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// A session id, stateless or stateful, issued to a principal at
// initialize is refused when another principal, or an anonymous caller,
// presents it; one issued anonymously serves any caller.
func TestSessionIsBoundToItsPrincipal(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateless", true: "stateful"}[stateful], func(t *testing.T) {
			testSessionIsBoundToItsPrincipal(t, &ferry.HTTPOptions{Stateful: stateful})
		})
	}
}

func testSessionIsBoundToItsPrincipal(t *testing.T, opts *ferry.HTTPOptions) {
	srv, logs := newLogged(t, nil)
	srv.AddTool(ferry.Tool{Name: "whoami", Description: "Names the caller."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		p, _ := ferry.PrincipalFromContext(ctx)
		return ferry.NewResult(ferry.Text(p.Subject)), nil
	})
	ts := httptest.NewServer(asUser(ferry.NewHTTPHandler(srv, opts)))
	defer ts.Close()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	const whoami = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	_, alices, _ := post(t, ts.URL, "alice", "", initialize)
	_, anonymous, _ := post(t, ts.URL, "", "", initialize)
	tests := []struct {
		name, session, user string
		want                int
	}{
		{"its principal", alices, "alice", http.StatusOK},
		{"another principal", alices, "mallory", http.StatusNotFound},
		{"its principal again", alices, "alice", http.StatusOK},
		{"another principal, once memoized", alices, "mallory", http.StatusNotFound},
		{"anonymous", alices, "", http.StatusNotFound},
		{"anonymous session, anonymous", anonymous, "", http.StatusOK},
		{"anonymous session, a principal", anonymous, "alice", http.StatusOK},
	}
	for _, tt := range tests {
		status, _, body := post(t, ts.URL, tt.user, tt.session, whoami, "Mcp-Protocol-Version", "2025-11-25")
		if status != tt.want {
			t.Errorf("%s: status %d, want %d: %s", tt.name, status, tt.want, body)
		}
		if status == http.StatusOK && tt.user != "" && !strings.Contains(body, `"text":"`+tt.user+`"`) {
			t.Errorf("%s: answer %s does not name %s", tt.name, body, tt.user)
		}
	}
	// The caller is told only "not found"; the operator learns why.
	if recs := logs.records(t, "ferry: refused a session opened by another caller"); len(recs) != 3 || recs[0]["caller"] != "mallory" {
		t.Errorf("log records %v; want one for each refused use", recs)
	}
	if !opts.Stateful {
		return
	}
	// Only its own caller may end a stateful session.
	del := func(user string) int {
		req, _ := http.NewRequest("DELETE", ts.URL, nil)
		req.Header.Set("Mcp-Session-Id", alices)
		if user != "" {
			req.Header.Set("X-User", user)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := del("mallory"); got != http.StatusNotFound {
		t.Errorf("DELETE by another principal: status %d, want 404", got)
	}
	if got := del("alice"); got != http.StatusNoContent {
		t.Errorf("DELETE by its principal: status %d, want 204", got)
	}
}

// The call log names the caller by its subject; on stdio, the principal
// comes from the context passed to Run.
func TestCallLogNamesPrincipalSubject(t *testing.T) {
	srv, logs := newLogged(t, nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ok")), nil
	})
	ctx := ferry.WithPrincipal(t.Context(), &ferry.Principal{Subject: "svc-reports", Scopes: []string{"read"}})
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",` + modernMeta + `}}` + "\n"
	if err := srv.Run(ctx, &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &strings.Builder{}}); err != nil {
		t.Fatal(err)
	}
	if rec := logs.callRecord(t); rec["principal"] != "svc-reports" {
		t.Errorf("call log = %v; want principal svc-reports", rec)
	}
}

func TestMissingScopesFollowsScopeImplies(t *testing.T) {
	srv := ferry.NewServer("t", "1", &ferry.ServerOptions{
		ScopeImplies: func(held, needed string) bool { return strings.HasPrefix(needed, held+":") },
	})
	p := &ferry.Principal{Subject: "ann", Scopes: []string{"orders", "audit:read"}}
	got := srv.MissingScopes(p, []string{"orders:read", "orders:write", "audit:read", "audit:write", "admin"})
	if want := []string{"audit:write", "admin"}; !slices.Equal(got, want) {
		t.Fatalf("MissingScopes = %q, want %q", got, want)
	}
	if got := srv.MissingScopes(nil, []string{"a"}); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("MissingScopes(nil) = %q, want every scope", got)
	}
	if got := srv.MissingScopes(p, nil); got != nil {
		t.Fatalf("MissingScopes(no need) = %q, want nil", got)
	}
}

func TestHasAnyRole(t *testing.T) {
	p := &ferry.Principal{Subject: "ann", Roles: []string{"clerk"}}
	for _, tt := range []struct {
		roles []string
		want  bool
	}{{nil, true}, {[]string{"admin", "clerk"}, true}, {[]string{"admin"}, false}} {
		if got := p.HasAnyRole(tt.roles); got != tt.want {
			t.Errorf("HasAnyRole(%q) = %v, want %v", tt.roles, got, tt.want)
		}
	}
	var anon *ferry.Principal
	if anon.HasAnyRole([]string{"clerk"}) || !anon.HasAnyRole(nil) {
		t.Error("a nil principal has no role, and meets an empty requirement")
	}
}
