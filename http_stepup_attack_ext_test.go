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

// A scope no credential can hold (empty, with a space, a quote, a line
// break) and an empty role are refused at registration on every kind of
// entry: the entry would be hidden from everyone, and a step-up
// challenge would ask for scopes that grant nothing.
func TestRequirementsNoCredentialMeetsAreRefused(t *testing.T) {
	bad := map[string][]string{
		"empty scope":      {""},
		"scope with space": {"orders write"},
		"scope with quote": {`a"b`},
		"scope with CRLF":  {"a\r\nSet-Cookie: x"},
		"non-ASCII scope":  {"bestellungen:lesen\u00e9"},
	}
	for name, scopes := range bad {
		t.Run(name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
			tool := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }
			read := func(context.Context, *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) { return nil, nil }
			prompt := func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) { return nil, nil }
			srv.AddTool(ferry.Tool{Name: "t", Description: "d", Scopes: scopes}, tool)
			srv.AddPrompt(ferry.Prompt{Name: "p", Description: "d", Scopes: scopes}, prompt)
			srv.AddResource(ferry.Resource{URI: "file:///r", Name: "r", Scopes: scopes}, read)
			srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "x://{id}", Name: "x", Scopes: scopes}, read)
			err := srv.Check()
			if err == nil {
				t.Fatal("Check() = nil")
			}
			for _, what := range []string{`tool "t": scope`, `prompt "p": scope`, `resource "file:///r": scope`, `resource template "x://{id}": scope`} {
				if !strings.Contains(err.Error(), what) {
					t.Errorf("Check() does not report %s:\n%v", what, err)
				}
			}
		})
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "t", Description: "d", Roles: []string{""}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if err := srv.Check(); err == nil || !strings.Contains(err.Error(), "a role is empty") {
		t.Errorf("empty role: Check() = %v", err)
	}
}

// An empty scope in a principal (a token whose scope claim was split on
// single spaces) grants nothing, even under a prefix hierarchy for which
// "" is a prefix of everything.
func TestEmptyHeldScopeImpliesNothing(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard,
		ScopeImplies: func(held, needed string) bool { return strings.HasPrefix(needed, held) }})
	p := &ferry.Principal{Subject: "eve", Scopes: []string{"", "profile"}}
	if got := srv.MissingScopes(p, []string{"payments:write", "profile:read"}); len(got) != 1 || got[0] != "payments:write" {
		t.Errorf("MissingScopes = %q, want [payments:write]", got)
	}
}

// Without StepUp no answer is ever a 403, whoever calls and however: a
// tool needing a role and scopes answers as unknown to a caller with the
// role but not the scopes, in both eras and in a 2025-03-26 batch.
func TestStepUpOffNeverAnswers403(t *testing.T) {
	var runs atomic.Int32
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard,
		ProtocolVersions: []string{"2026-07-28", "2025-11-25", "2025-03-26"}})
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds.", Scopes: []string{"payments:write"}, Roles: []string{"clerk"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			runs.Add(1)
			return ferry.NewResult(ferry.Text("ran")), nil
		})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	clerk := []string{"X-User", "bob", "X-Roles", "clerk", "X-Scopes", "orders"}
	for _, e := range eras {
		got := e.send(t, ts.URL, "tools/call", "refund", `"name":"refund","arguments":{}`, clerk...)
		if got.status != http.StatusOK || got.header.Get("WWW-Authenticate") != "" || !strings.Contains(got.body, `unknown tool \"refund\"`) {
			t.Errorf("%s: %d %q %s", e.name, got.status, got.header.Get("WWW-Authenticate"), got.body)
		}
	}
	init := send(t, ts.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`, clerk...)
	got := send(t, ts.URL, `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"refund","arguments":{}}}]`,
		append([]string{"Mcp-Session-Id", init.header.Get("Mcp-Session-Id")}, clerk...)...)
	if got.status != http.StatusOK || !strings.Contains(got.body, `unknown tool \"refund\"`) {
		t.Errorf("batch: %d %s", got.status, got.body)
	}
	if runs.Load() != 0 {
		t.Errorf("%d calls ran", runs.Load())
	}
}

// With StepUp, a tool needing only offline_access, which challenges never
// name, still gets a 403 whose challenge has no scope parameter rather
// than one that asks for offline_access.
func TestStepUpNeverChallengesForOfflineAccess(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, StepUp: true})
	srv.AddTool(ferry.Tool{Name: "sync", Description: "Syncs.", Scopes: []string{"offline_access"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("ran")), nil
		})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		got := e.send(t, ts.URL, "tools/call", "sync", `"name":"sync","arguments":{}`, "X-User", "bob")
		c := got.header.Get("WWW-Authenticate")
		if got.status != http.StatusForbidden || strings.Contains(c, "scope=") || strings.Contains(got.body, `"text":"ran"`) {
			t.Errorf("%s: %d %q %s", e.name, got.status, c, got.body)
		}
	}
}

// The 403 is decided as the call itself would be: a Visible hook that
// reads the CallInfo (here, one that shows tools only inside a request)
// sees the same request in the HTTP handler's step-up check as in the
// call, so the caller gets the 403 challenge, not an in-band refusal, in
// both eras.
func TestStepUpCheckShowsVisibleTheCall(t *testing.T) {
	var sawTool atomic.Bool
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, StepUp: true,
		Visible: func(ctx context.Context, tool ferry.ToolInfo) bool {
			info, ok := ferry.CallInfoFromContext(ctx)
			if ok && info.Tool == tool.Name {
				sawTool.Store(true)
			}
			return ok
		}})
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds.", Scopes: []string{"payments:write"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("ran")), nil
		})
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		sawTool.Store(false)
		got := e.send(t, ts.URL, "tools/call", "refund", `"name":"refund","arguments":{}`, "X-User", "bob")
		if got.status != http.StatusForbidden || !strings.Contains(got.header.Get("WWW-Authenticate"), `scope="payments:write"`) {
			t.Errorf("%s: %d %q %s", e.name, got.status, got.header.Get("WWW-Authenticate"), got.body)
		}
		if !sawTool.Load() {
			t.Errorf("%s: Visible was not shown the call's tool", e.name)
		}
	}
}
