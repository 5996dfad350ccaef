package ferry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// stepUpServer serves "refund", which needs the scopes orders:read,
// payments:write and offline_access and the role clerk, on a StepUp
// server where "orders" implies every orders:* scope.
func stepUpServer(t *testing.T, runs *atomic.Int32, versions ...string) (*ferry.Server, string) {
	t.Helper()
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{
		Logger: discard, StepUp: true, ProtocolVersions: versions,
		ScopeImplies: func(held, needed string) bool { return strings.HasPrefix(needed, held+":") },
	})
	tool := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("ran")), nil
	}
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order.",
		Scopes: []string{"orders:read", "payments:write", "offline_access"}, Roles: []string{"clerk"}}, tool)
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks up an order.", ReadOnly: true}, tool)
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{
		ResourceMetadataURL: "https://api.example.com/.well-known/oauth-protected-resource/mcp"})))
	t.Cleanup(ts.Close)
	return srv, ts.URL
}

const wantChallenge = `Bearer error="insufficient_scope", scope="payments:write", ` +
	`resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp", ` +
	`error_description="this tool needs the scope(s) payments:write"`

// With StepUp, a caller who has the role but lacks scopes sees the tool,
// and calling it over HTTP gets 403 with a challenge naming exactly the
// missing scopes (under the scope hierarchy, never offline_access), in
// both eras; the tool does not run.
func TestStepUpCallGetsInsufficientScopeChallenge(t *testing.T) {
	var runs atomic.Int32
	_, url := stepUpServer(t, &runs)
	clerk := []string{"X-User", "bob", "X-Roles", "clerk", "X-Scopes", "orders"}
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			got := e.send(t, url, "tools/call", "refund", `"name":"refund","arguments":{}`, clerk...)
			if got.status != http.StatusForbidden {
				t.Errorf("status %d, want 403: %s", got.status, got.body)
			}
			if c := got.header.Get("WWW-Authenticate"); c != wantChallenge {
				t.Errorf("WWW-Authenticate:\n%s\nwant\n%s", c, wantChallenge)
			}
			const body = `{"jsonrpc":"2.0","id":2,"error":{"code":-32003,"message":"forbidden: this tool needs the scope(s) payments:write"}}`
			if strings.TrimSpace(got.body) != body {
				t.Errorf("body %s\nwant %s", got.body, body)
			}
			if runs.Load() != 0 {
				t.Errorf("the tool ran")
			}
			if list := e.send(t, url, "tools/list", "", "", clerk...); !strings.Contains(list.body, `"name":"refund"`) {
				t.Errorf("tools/list does not show refund for step-up: %s", list.body)
			}
		})
	}
}

// Step-up is for authenticated callers with the role: an anonymous
// caller, and one without the role, get the unknown-tool answer and do
// not see the tool; a caller holding every scope calls it.
func TestStepUpHidesFromOthers(t *testing.T) {
	var runs atomic.Int32
	_, url := stepUpServer(t, &runs)
	for _, e := range eras {
		for who, hd := range map[string][]string{
			"anonymous":       nil,
			"without role":    {"X-User", "eve", "X-Scopes", "orders"},
			"with everything": {"X-User", "ann", "X-Roles", "clerk", "X-Scopes", "orders,payments:write,offline_access"},
		} {
			t.Run(e.name+"/"+who, func(t *testing.T) {
				before := runs.Load()
				got := e.send(t, url, "tools/call", "refund", `"name":"refund","arguments":{}`, hd...)
				list := e.send(t, url, "tools/list", "", "", hd...)
				if who == "with everything" {
					if !strings.Contains(got.body, `"text":"ran"`) || runs.Load() != before+1 {
						t.Errorf("call: %d %s", got.status, got.body)
					}
					return
				}
				if got.status != http.StatusOK || !strings.Contains(got.body, `unknown tool \"refund\"`) || got.header.Get("WWW-Authenticate") != "" {
					t.Errorf("call: %d %v %s", got.status, got.header, got.body)
				}
				if strings.Contains(list.body, "refund") {
					t.Errorf("tools/list shows refund: %s", list.body)
				}
				if runs.Load() != before {
					t.Error("the tool ran")
				}
			})
		}
	}
}

// A 2025-03-26 batch that calls a step-up tool is refused whole with the
// 403 challenge: none of it runs.
func TestStepUpBatchIsRefusedWhole(t *testing.T) {
	var runs atomic.Int32
	_, url := stepUpServer(t, &runs, "2025-03-26")
	clerk := []string{"X-User", "bob", "X-Roles", "clerk", "X-Scopes", "orders"}
	init := send(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`, clerk...)
	sid := init.header.Get("Mcp-Session-Id")
	got := send(t, url, `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup","arguments":{}}},`+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"refund","arguments":{}}}]`,
		append([]string{"Mcp-Session-Id", sid}, clerk...)...)
	if got.status != http.StatusForbidden || got.header.Get("WWW-Authenticate") != wantChallenge {
		t.Errorf("batch: %d %q %s", got.status, got.header.Get("WWW-Authenticate"), got.body)
	}
	if runs.Load() != 0 {
		t.Errorf("%d tools ran", runs.Load())
	}
}

// Over stdio there is no HTTP status to ask with: the call gets a refusal
// naming the missing scopes.
func TestStepUpOverStdioIsARefusal(t *testing.T) {
	var runs atomic.Int32
	srv, _ := stepUpServer(t, &runs)
	ctx := ferry.WithPrincipal(t.Context(), &ferry.Principal{Subject: "bob", Roles: []string{"clerk"}, Scopes: []string{"orders"}})
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"refund","arguments":{},` + modernMeta + `}}` + "\n"
	var out strings.Builder
	if err := srv.Run(ctx, &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	const want = `"content":[{"type":"text","text":"forbidden: this tool needs the scope(s) payments:write"}],"isError":true`
	if !strings.Contains(out.String(), want) || runs.Load() != 0 {
		t.Errorf("answer %s; want %s", out.String(), want)
	}
}

// A batch's step-up check asks Visible as each element's call will: with
// the element's CallInfo. A tool Visible hides from the request (here, by
// its headers) answers as unknown inside the batch, and its scopes are
// not named in a 403 challenge.
func TestStepUpBatchAsksVisibleWithTheCall(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{
		Logger: discard, StepUp: true, ProtocolVersions: []string{"2025-03-26"},
		Visible: func(ctx context.Context, t ferry.ToolInfo) bool {
			ci, ok := ferry.CallInfoFromContext(ctx)
			return !ok || t.Name != "refund" || ci.Header.Get("X-Beta") != ""
		},
	})
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds an order.",
		Scopes: []string{"payments:write"}, Roles: []string{"clerk"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			runs.Add(1)
			return ferry.NewResult(ferry.Text("ran")), nil
		})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	clerk := []string{"X-User", "bob", "X-Roles", "clerk", "X-Scopes", "orders"}
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`, clerk...)
	sid := init.header.Get("Mcp-Session-Id")
	got := send(t, ts.URL, `[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"refund","arguments":{}}}]`,
		append([]string{"Mcp-Session-Id", sid}, clerk...)...)
	if got.status != http.StatusOK || got.header.Get("WWW-Authenticate") != "" || !strings.Contains(got.body, `unknown tool \"refund\"`) {
		t.Errorf("batch: %d %q %s", got.status, got.header.Get("WWW-Authenticate"), got.body)
	}
	if runs.Load() != 0 {
		t.Errorf("the tool ran")
	}
}

// A tool that needs scopes and no role is still hidden from an anonymous
// caller under StepUp: step-up asks an authenticated caller for more
// scopes, while an anonymous one has no token to step up. (The role check
// hides "refund" above before the caller's presence is asked.)
func TestStepUpHidesScopesOnlyToolFromAnonymous(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, StepUp: true})
	srv.AddTool(ferry.Tool{Name: "export", Description: "Exports the orders.", ReadOnly: true, Scopes: []string{"orders:read"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			runs.Add(1)
			return ferry.NewResult(ferry.Text("ran")), nil
		})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			got := e.send(t, ts.URL, "tools/call", "export", `"name":"export","arguments":{}`)
			if got.status != http.StatusOK || !strings.Contains(got.body, `unknown tool \"export\"`) || got.header.Get("WWW-Authenticate") != "" {
				t.Errorf("anonymous call: %d %v %s", got.status, got.header, got.body)
			}
			if list := e.send(t, ts.URL, "tools/list", "", ""); strings.Contains(list.body, "export") {
				t.Errorf("tools/list shows export to an anonymous caller: %s", list.body)
			}
			// An authenticated caller without the scope is asked for it.
			if got := e.send(t, ts.URL, "tools/call", "export", `"name":"export","arguments":{}`, "X-User", "bob"); got.status != http.StatusForbidden {
				t.Errorf("authenticated call: %d %s; want 403", got.status, got.body)
			}
			if runs.Load() != 0 {
				t.Error("the tool ran")
			}
		})
	}
}
