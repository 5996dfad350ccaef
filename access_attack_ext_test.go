package ferry_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
)

// leakServer is guardedServer's entries plus what an attacker probes
// beyond a plain call: schema resources, a hidden tool with a typed input
// schema and one with an Mcp-Param header, so that validation and header
// checks come before or after the access check. Without guarded, the
// hidden entries are never added.
func leakServer(t *testing.T, guarded bool, opts *ferry.ServerOptions, runs *atomic.Int32) string {
	t.Helper()
	if opts == nil {
		opts = &ferry.ServerOptions{}
	}
	opts.Logger = discard
	opts.SigningKeys = [][]byte{[]byte("access-test-key")}
	srv := ferry.NewServer("s", "1", opts)
	tool := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		runs.Add(1)
		return ferry.NewResult(ferry.Text("ran")), nil
	}
	read := func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		runs.Add(1)
		return []ferry.ResourceContents{{URI: req.URI, Text: "secret"}}, nil
	}
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks things up.", ReadOnly: true}, tool)
	srv.AddResource(ferry.Resource{URI: "file:///readme", Name: "readme"}, read)
	srv.AddSchemaResources("app")
	if guarded {
		srv.AddTool(ferry.Tool{Name: "ledger", Description: "Shows the ledger.", Roles: []string{"admin"},
			InputSchema: schema.Object(schema.Required("month", schema.Integer("The month.")))}, tool)
		srv.AddTool(ferry.Tool{Name: "region", Description: "Runs in a region.", Scopes: []string{"ops"},
			RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)}, tool)
		srv.AddResource(ferry.Resource{URI: "file:///payslips", Name: "payslips", Scopes: []string{"hr"}}, read)
	}
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Probes beyond a plain call of a hidden entry answer byte for byte as
// the same probes of a name that does not exist: arguments that fail the
// hidden tool's schema, an Mcp-Param header for its argument, an Mcp-Name
// header that names it while the body names another tool, its schema
// resource, the completion of tool names, a subscription to a hidden
// resource. No handler runs.
func TestHiddenEntriesLeakNothingToProbes(t *testing.T) {
	var runs atomic.Int32
	guarded, plain := leakServer(t, true, nil, &runs), leakServer(t, false, nil, &runs)
	requests := []struct {
		name, method, key, params string
		header                    []string
		legacyOnly                bool
	}{
		{name: "arguments that fail its schema", method: "tools/call", key: "ledger", params: `"name":"ledger","arguments":{"month":"x","extra":1}`},
		{name: "arguments not an object", method: "tools/call", key: "ledger", params: `"name":"ledger","arguments":[1]`},
		{name: "Mcp-Param header", method: "tools/call", key: "region", params: `"name":"region","arguments":{"region":"eu"}`, header: []string{"Mcp-Param-Region", "us"}},
		{name: "Mcp-Param header missing", method: "tools/call", key: "region", params: `"name":"region","arguments":{"region":"eu"}`},
		{name: "Mcp-Name names it, body another", method: "tools/call", key: "ledger", params: `"name":"lookup","arguments":{}`},
		{name: "body names it, Mcp-Name another", method: "tools/call", key: "lookup", params: `"name":"ledger","arguments":{}`},
		{name: "its schema resource", method: "resources/read", key: "app://schemas/ledger", params: `"uri":"app://schemas/ledger"`},
		{name: "every schema", method: "resources/read", key: "app://schemas", params: `"uri":"app://schemas"`},
		{name: "tool name completion", method: "completion/complete", params: `"ref":{"type":"ref/resource","uri":"app://schemas/{tool}"},"argument":{"name":"tool","value":""}`},
		{name: "tool name completion by prefix", method: "completion/complete", params: `"ref":{"type":"ref/resource","uri":"app://schemas/{tool}"},"argument":{"name":"tool","value":"le"}`},
		{name: "resource list", method: "resources/list"},
		{name: "tools list", method: "tools/list"},
		{name: "subscribe to a hidden resource", method: "resources/subscribe", params: `"uri":"file:///payslips"`, legacyOnly: true},
		{name: "read a hidden resource", method: "resources/read", key: "file:///payslips", params: `"uri":"file:///payslips"`},
	}
	callers := map[string][]string{
		"anonymous":         nil,
		"without the grant": {"X-User", "bob", "X-Scopes", "sales", "X-Roles", "clerk"},
	}
	for _, e := range eras {
		for who, hd := range callers {
			for _, rq := range requests {
				if rq.legacyOnly && e.name != "2025-11-25" {
					continue
				}
				t.Run(e.name+"/"+who+"/"+rq.name, func(t *testing.T) {
					before := runs.Load()
					h := append(append([]string{}, rq.header...), hd...)
					got := e.send(t, guarded, rq.method, rq.key, rq.params, h...)
					want := e.send(t, plain, rq.method, rq.key, rq.params, h...)
					// A list private to its callers says that the server guards
					// something, not what: that tell is by design.
					gotBody := got.body
					if rq.method == "tools/list" || rq.method == "resources/list" {
						gotBody = strings.Replace(gotBody, `"cacheScope":"private"`, `"cacheScope":"public"`, 1)
					}
					if got.status != want.status || gotBody != want.body {
						t.Errorf("probe of a hidden entry answered\n%d %s\nthe same probe of an unknown one\n%d %s", got.status, got.body, want.status, want.body)
					}
					if n := runs.Load() - before; n != 0 && !strings.Contains(rq.params, `"lookup"`) && !strings.Contains(rq.params, "readme") {
						t.Errorf("%d handlers ran", n)
					}
				})
			}
		}
	}
}

// A hidden prompt probed with arguments that would fail its own checks
// (an undeclared argument, arguments not an object, a completion of an
// argument it does not have) answers as an unknown prompt does.
func TestHiddenPromptLeaksNothingToArgumentProbes(t *testing.T) {
	var runs atomic.Int32
	guarded, plain := guardedServer(t, true, nil, &runs), guardedServer(t, false, nil, &runs)
	requests := []struct{ name, method, key, params string }{
		{"undeclared argument", "prompts/get", "board", `"name":"board","arguments":{"nope":"x"}`},
		{"arguments not an object", "prompts/get", "board", `"name":"board","arguments":[1]`},
		{"argument not a string", "prompts/get", "board", `"name":"board","arguments":{"topic":1}`},
		{"completion of an undeclared argument", "completion/complete", "", `"ref":{"type":"ref/prompt","name":"board"},"argument":{"name":"nope","value":""}`},
		{"template completion of an undeclared variable", "completion/complete", "", `"ref":{"type":"ref/resource","uri":"vault://{id}"},"argument":{"name":"nope","value":""}`},
	}
	for _, e := range eras {
		for _, rq := range requests {
			t.Run(e.name+"/"+rq.name, func(t *testing.T) {
				bob := []string{"X-User", "bob", "X-Roles", "clerk"}
				got := e.send(t, guarded, rq.method, rq.key, rq.params, bob...)
				want := e.send(t, plain, rq.method, rq.key, rq.params, bob...)
				if got.status != want.status || got.body != want.body {
					t.Errorf("hidden\n%d %s\nunknown\n%d %s", got.status, got.body, want.status, want.body)
				}
			})
		}
	}
	if runs.Load() != 0 {
		t.Errorf("%d handlers ran", runs.Load())
	}
}
