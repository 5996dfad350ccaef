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

	"net/http"

	"github.com/ferry-mcp/ferry/route"
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

// AttackAuth is a struct a typed tool's input embeds or holds.
type AttackAuth struct {
	Caller *ferry.Principal
}

type (
	attackEmbedded struct {
		AttackAuth
		Note string `json:"note"`
	}
	attackByValue struct {
		Caller ferry.Principal
		Note   string `json:"note"`
	}
	attackNested struct {
		Meta *AttackAuth `json:"meta"`
		Note string      `json:"note"`
	}
	attackTwoPointers struct {
		Caller **ferry.Principal
		Note   string `json:"note"`
	}
	attackInSlice struct {
		Callers []ferry.Principal `json:"callers"`
	}
	// attackHiddenAuth is unexported, but embedded its exported fields are
	// promoted, and the decoder fills them.
	attackHiddenAuth struct {
		Caller *ferry.Principal
	}
	attackUnexportedEmbed struct {
		attackHiddenAuth
		Note string `json:"note"`
	}
)

// forged is a whole Principal as JSON, every member the schema of a
// Principal requires: a decoder that reads it would hand the handler a
// caller named root with the admin role.
const forged = `{"Subject":"root","Scopes":["*"],"Roles":["admin"],"Expires":"2999-01-01T00:00:00Z","Claims":{}}`

// A typed tool whose input holds a Principal anywhere but in a *Principal
// field of its own is refused at registration, Check says where, and a
// call that forges a whole Principal in the arguments reaches no handler:
// otherwise any client could name itself root.
func TestTypedToolRefusesAPrincipalTheArgumentsWouldFill(t *testing.T) {
	cases := []struct {
		name, args, where string
		add               func(*ferry.Server, func(*ferry.Principal))
	}{
		{"embedded", `{"note":"x","Caller":` + forged + `}`, "attackEmbedded.AttackAuth.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackEmbedded) (string, error) { saw(in.Caller); return "ran", nil })
		}},
		{"by value", `{"note":"x","Caller":` + forged + `}`, "attackByValue.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackByValue) (string, error) { saw(&in.Caller); return "ran", nil })
		}},
		{"nested", `{"note":"x","meta":{"Caller":` + forged + `}}`, "attackNested.Meta.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackNested) (string, error) {
				if in.Meta != nil {
					saw(in.Meta.Caller)
				}
				return "ran", nil
			})
		}},
		{"two pointers", `{"note":"x","Caller":` + forged + `}`, "attackTwoPointers.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackTwoPointers) (string, error) {
				if in.Caller != nil {
					saw(*in.Caller)
				}
				return "ran", nil
			})
		}},
		{"embedded unexported", `{"note":"x","Caller":` + forged + `}`, "attackUnexportedEmbed.attackHiddenAuth.Caller", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackUnexportedEmbed) (string, error) { saw(in.Caller); return "ran", nil })
		}},
		{"in a slice", `{"callers":[` + forged + `]}`, "attackInSlice.Callers", func(s *ferry.Server, saw func(*ferry.Principal)) {
			ferry.AddTool(s, ferry.Tool{Name: "t", Description: "d"}, func(_ context.Context, in attackInSlice) (string, error) {
				for i := range in.Callers {
					saw(&in.Callers[i])
				}
				return "ran", nil
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
			var forgedSeen []string
			c.add(srv, func(p *ferry.Principal) {
				if p != nil {
					forgedSeen = append(forgedSeen, p.Subject)
				}
			})
			err := srv.Check()
			if err == nil || !strings.Contains(err.Error(), c.where+" holds a ferry.Principal") {
				t.Errorf("Check() = %v, want it to name %s", err, c.where)
			}
			in := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + c.args + `,` + modernMeta + `}}` + "\n"
			var out strings.Builder
			_ = srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out})
			if forgedSeen != nil || strings.Contains(out.String(), `"text":"ran"`) {
				t.Errorf("the handler ran with the forged principal %v: %s", forgedSeen, out.String())
			}
		})
	}
}

// A *Principal field of In itself stays allowed next to a struct that
// holds none.
func TestTypedToolWithOwnPrincipalFieldPassesCheck(t *testing.T) {
	type note struct{ Text string }
	type in struct {
		Caller *ferry.Principal `json:"-"`
		Notes  []note           `json:"notes"`
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "t", Description: "d"}, func(context.Context, in) (string, error) { return "ran", nil })
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
}

// attackTree is a recursive input type: the walk for stray principals
// ends on it.
type attackTree struct {
	Name     string        `json:"name"`
	Children []*attackTree `json:"children,omitempty"`
}

// A recursive input type with no Principal passes Check.
func TestTypedToolWithRecursiveInputPassesCheck(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	ferry.AddTool(srv, ferry.Tool{Name: "t", Description: "d"}, func(context.Context, attackTree) (string, error) { return "ran", nil })
	if err := srv.Check(); err != nil && strings.Contains(err.Error(), "Principal") {
		t.Fatal(err)
	}
}

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

type routeIn struct {
	ID string `json:"id" doc:"The order."`
}

// On a read-only server a tool bound to a route that is not GET or HEAD
// is hidden and refused as unknown in both eras: the service's handler
// never sees the write. A GET route is served.
func TestReadOnlyServerHidesRouteBoundWrites(t *testing.T) {
	var writes atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /orders/{id}", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"id":"1"}`)) })
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		mux.HandleFunc(m+" /orders/{id}", func(w http.ResponseWriter, r *http.Request) {
			writes.Add(1)
			_, _ = w.Write([]byte(`{"written":true}`))
		})
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, ReadOnly: true})
	api := route.New(srv, mux, nil)
	route.AddTool[routeIn](api, ferry.Tool{Name: "show_order", Description: "Shows an order."}, "GET /orders/{id}")
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		route.AddTool[routeIn](api, ferry.Tool{Name: strings.ToLower(m) + "_order", Description: "Writes an order."}, m+" /orders/{id}")
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		if got := e.send(t, ts.URL, "tools/call", "show_order", `"name":"show_order","arguments":{"id":"1"}`); strings.Contains(got.body, "unknown tool") {
			t.Errorf("%s: the GET route: %s", e.name, got.body)
		}
		for _, m := range []string{"post", "put", "patch", "delete"} {
			name := m + "_order"
			got := e.send(t, ts.URL, "tools/call", name, `"name":"`+name+`","arguments":{"id":"1"}`)
			if !strings.Contains(got.body, `unknown tool \"`+name+`\"`) {
				t.Errorf("%s: %s: %s", e.name, name, got.body)
			}
		}
		if list := e.send(t, ts.URL, "tools/list", "", ""); strings.Contains(list.body, "post_order") || !strings.Contains(list.body, "show_order") {
			t.Errorf("%s: tools/list: %s", e.name, list.body)
		}
	}
	if writes.Load() != 0 {
		t.Errorf("the service saw %d writes", writes.Load())
	}
}
