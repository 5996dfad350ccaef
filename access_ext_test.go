package ferry_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"

	"slices"

	"encoding/json"
)

// asCaller sets the principal an authenticator would: X-User names it,
// X-Scopes and X-Roles (comma-separated) say what it holds. No X-User
// leaves the request anonymous.
func asCaller(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			p := &ferry.Principal{Subject: user}
			if s := r.Header.Get("X-Scopes"); s != "" {
				p.Scopes = strings.Split(s, ",")
			}
			if s := r.Header.Get("X-Roles"); s != "" {
				p.Roles = strings.Split(s, ",")
			}
			r = r.WithContext(ferry.WithPrincipal(r.Context(), p))
		}
		h.ServeHTTP(w, r)
	})
}

// exchange is one HTTP answer as a test compares it.
type exchange struct {
	status int
	header http.Header
	body   string
}

// send posts body to url with the header pairs and returns the answer.
func send(t *testing.T, url, body string, header ...string) exchange {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return exchange{resp.StatusCode, resp.Header, string(data)}
}

// era sends one request in one protocol era, as the caller given by the
// X-User, X-Scopes and X-Roles pairs of who.
type era struct {
	name string
	send func(t *testing.T, url, method, name, params string, who ...string) exchange
}

// eras are the two ways a request reaches the HTTP handler: a legacy
// session (initialize first) and a modern request with its headers.
var eras = []era{
	{"2025-11-25", func(t *testing.T, url, method, name, params string, who ...string) exchange {
		t.Helper()
		init := send(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`, who...)
		sid := init.header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("initialize: %d %s", init.status, init.body)
		}
		return send(t, url, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{`+params+`}}`,
			append([]string{"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25"}, who...)...)
	}},
	{"2026-07-28", func(t *testing.T, url, method, name, params string, who ...string) exchange {
		t.Helper()
		if params != "" {
			params += ","
		}
		hd := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}
		if name != "" {
			hd = append(hd, "Mcp-Name", name)
		}
		return send(t, url, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{`+params+modernMeta+`}}`, append(hd, who...)...)
	}},
}

// guardedServer serves an open tool, a prompt, a resource and a template,
// and, when guarded, entries that need roles or scopes: the tools ledger
// (role admin) and payroll (scope hr), the prompt board (role admin), the
// resource file:///payslips (scope hr) and the template vault://{id}
// (role admin). Without them, it is the same server with those entries
// never added. runs counts the handlers that ran.
func guardedServer(t *testing.T, guarded bool, opts *ferry.ServerOptions, runs *atomic.Int32) string {
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
	prompt := func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		runs.Add(1)
		return &ferry.PromptResult{Messages: []ferry.PromptMessage{ferry.UserMessage(ferry.Text("hi"))}}, nil
	}
	read := func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		runs.Add(1)
		return []ferry.ResourceContents{{URI: req.URI, Text: "secret"}}, nil
	}
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks things up.", ReadOnly: true}, tool)
	srv.AddPrompt(ferry.Prompt{Name: "greet", Description: "Greets."}, prompt)
	srv.AddResource(ferry.Resource{URI: "file:///readme", Name: "readme"}, read)
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "open://{id}", Name: "open"}, read)
	if guarded {
		srv.AddTool(ferry.Tool{Name: "ledger", Description: "Shows the ledger.", Roles: []string{"admin"}}, tool)
		srv.AddTool(ferry.Tool{Name: "payroll", Description: "Runs the payroll.", Scopes: []string{"hr"}}, tool)
		srv.AddPrompt(ferry.Prompt{Name: "board", Description: "Briefs the board.", Roles: []string{"admin"},
			Arguments: []ferry.PromptArgument{{Name: "topic", Values: []string{"budget"}}}}, prompt)
		srv.AddResource(ferry.Resource{URI: "file:///payslips", Name: "payslips", Scopes: []string{"hr"}}, read)
		srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "vault://{id}", Name: "vault", Roles: []string{"admin"},
			Values: map[string][]string{"id": {"gold"}}}, read)
	}
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A caller who lacks an entry's role or scope, anonymous or not, gets
// byte for byte the answer a name that does not exist gets, in both eras,
// and no handler runs.
func TestEntriesACallerMayNotUseAnswerAsUnknown(t *testing.T) {
	var runs atomic.Int32
	guarded, plain := guardedServer(t, true, nil, &runs), guardedServer(t, false, nil, &runs)
	requests := []struct{ name, method, key, params string }{
		{"tool by role", "tools/call", "ledger", `"name":"ledger","arguments":{}`},
		{"tool by scope", "tools/call", "payroll", `"name":"payroll","arguments":{}`},
		{"prompt", "prompts/get", "board", `"name":"board"`},
		{"resource", "resources/read", "file:///payslips", `"uri":"file:///payslips"`},
		{"template", "resources/read", "vault://gold", `"uri":"vault://gold"`},
		{"prompt completion", "completion/complete", "", `"ref":{"type":"ref/prompt","name":"board"},"argument":{"name":"topic","value":"b"}`},
		{"template completion", "completion/complete", "", `"ref":{"type":"ref/resource","uri":"vault://{id}"},"argument":{"name":"id","value":"g"}`},
	}
	callers := map[string][]string{
		"anonymous":         nil,
		"without the grant": {"X-User", "bob", "X-Scopes", "sales", "X-Roles", "clerk"},
	}
	for _, e := range eras {
		for who, hd := range callers {
			for _, rq := range requests {
				t.Run(e.name+"/"+who+"/"+rq.name, func(t *testing.T) {
					before := runs.Load()
					got := e.send(t, guarded, rq.method, rq.key, rq.params, hd...)
					want := e.send(t, plain, rq.method, rq.key, rq.params, hd...)
					if got.status != want.status || got.body != want.body {
						t.Errorf("hidden entry answered\n%d %s\nunknown one answered\n%d %s", got.status, got.body, want.status, want.body)
					}
					if !strings.Contains(want.body, `"error"`) {
						t.Errorf("the unknown name got no error: %s", want.body)
					}
					if n := runs.Load() - before; n != 0 {
						t.Errorf("%d handlers ran", n)
					}
				})
			}
		}
	}
}

// Lists leave out what the caller may not use, and a modern list that
// depends on its caller is private to shared caches; a caller who holds
// the grant sees the entry and can use it.
func TestListsShowOnlyWhatTheCallerMayUse(t *testing.T) {
	var runs atomic.Int32
	url := guardedServer(t, true, nil, &runs)
	lists := []struct{ method, hidden string }{
		{"tools/list", `"name":"ledger"`},
		{"tools/list", `"name":"payroll"`},
		{"prompts/list", `"name":"board"`},
		{"resources/list", `"uri":"file:///payslips"`},
		{"resources/templates/list", `"uriTemplate":"vault://{id}"`},
	}
	bob := []string{"X-User", "bob"}
	boss := []string{"X-User", "ann", "X-Scopes", "hr", "X-Roles", "admin"}
	for _, e := range eras {
		for _, l := range lists {
			t.Run(e.name+"/"+l.method+"/"+l.hidden, func(t *testing.T) {
				got := e.send(t, url, l.method, "", "", bob...)
				if strings.Contains(got.body, l.hidden) {
					t.Errorf("bob's %s lists %s: %s", l.method, l.hidden, got.body)
				}
				if e.name == "2026-07-28" && !strings.Contains(got.body, `"cacheScope":"private"`) {
					t.Errorf("%s is not private: %s", l.method, got.body)
				}
				if got := e.send(t, url, l.method, "", "", boss...); !strings.Contains(got.body, l.hidden) {
					t.Errorf("ann's %s does not list %s: %s", l.method, l.hidden, got.body)
				}
			})
		}
		t.Run(e.name+"/granted call", func(t *testing.T) {
			before := runs.Load()
			got := e.send(t, url, "tools/call", "ledger", `"name":"ledger","arguments":{}`, boss...)
			if !strings.Contains(got.body, `"text":"ran"`) || runs.Load() != before+1 {
				t.Errorf("ann's call of ledger: %d %s", got.status, got.body)
			}
		})
	}
}

// On a read-only server every tool that may write is hidden and refused
// as an unknown one, for every caller and in both eras; the catalog still
// lists it, and Allows says it is refused.
func TestReadOnlyServerHidesAndRefusesWrites(t *testing.T) {
	var runs atomic.Int32
	build := func(withWrite bool) (*ferry.Server, string) {
		srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, ReadOnly: true})
		tool := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			runs.Add(1)
			return ferry.NewResult(ferry.Text("ran")), nil
		}
		srv.AddTool(ferry.Tool{Name: "find", Description: "Finds.", ReadOnly: true}, tool)
		if withWrite {
			srv.AddTool(ferry.Tool{Name: "erase", Description: "Erases.", Additive: true, Idempotent: true}, tool)
		}
		ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
		t.Cleanup(ts.Close)
		return srv, ts.URL
	}
	srv, readOnly := build(true)
	_, plain := build(false)
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			admin := []string{"X-User", "root", "X-Roles", "admin"}
			got := e.send(t, readOnly, "tools/call", "erase", `"name":"erase","arguments":{}`, admin...)
			want := e.send(t, plain, "tools/call", "erase", `"name":"erase","arguments":{}`, admin...)
			if got.status != want.status || got.body != want.body || !strings.Contains(got.body, `unknown tool \"erase\"`) {
				t.Errorf("erase answered %d %s; unknown tool %d %s", got.status, got.body, want.status, want.body)
			}
			if runs.Load() != 0 {
				t.Errorf("%d handlers ran", runs.Load())
			}
			list := e.send(t, readOnly, "tools/list", "", "", admin...)
			if strings.Contains(list.body, "erase") || !strings.Contains(list.body, `"name":"find"`) {
				t.Errorf("tools/list = %s", list.body)
			}
			if e.name == "2026-07-28" && !strings.Contains(list.body, `"cacheScope":"public"`) {
				t.Errorf("a read-only list is the same for every caller, so public: %s", list.body)
			}
		})
	}
	info, ok := srv.Catalog().Lookup("erase")
	if !ok || !info.Writes() {
		t.Fatalf("the catalog lacks erase: %v %v", info, ok)
	}
	if srv.Allows(context.Background(), info) {
		t.Error("Allows(erase) on a read-only server = true")
	}
	find, _ := srv.Catalog().Lookup("find")
	if !srv.Allows(context.Background(), find) {
		t.Error("Allows(find) = false")
	}
}

// CallInfo carries the HTTP request's Host, which net/http keeps out of
// the headers, and nothing on stdio.
func TestCallInfoHasTheHost(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "host", Description: "Names the host."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		info, _ := ferry.CallInfoFromContext(ctx)
		return ferry.NewResult(ferry.Text("host=" + info.Host)), nil
	})
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	for _, e := range eras {
		got := e.send(t, ts.URL, "tools/call", "host", `"name":"host","arguments":{}`)
		if want := `"text":"host=` + strings.TrimPrefix(ts.URL, "http://") + `"`; !strings.Contains(got.body, want) {
			t.Errorf("%s: %s; want %s", e.name, got.body, want)
		}
	}
	var out strings.Builder
	in := modernCall("host", "{}") + "\n"
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil || !strings.Contains(out.String(), `"host="`) {
		t.Errorf("stdio: %s %v", out.String(), err)
	}
}

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

// asUser sets the principal named by the X-User header, as an
// authenticator in front of the handler would.
func asUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: user, Scopes: strings.Split(r.Header.Get("X-Scopes"), ",")}))
		}
		h.ServeHTTP(w, r)
	})
}

// post sends one JSON-RPC body and returns the status, the session id
// header and the body.
func post(t *testing.T, url, user, session, body string, header ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if user != "" {
		req.Header.Set("X-User", user)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data)
}

// scopedServer serves two tools; "payroll" needs the scope "hr", and
// Visible shows a tool only to callers that hold every scope it needs.
// Without payroll, it serves the same server with that tool never added.
func scopedServer(t *testing.T, withPayroll bool) string {
	t.Helper()
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{
		Logger:      discard,
		SigningKeys: [][]byte{[]byte("visible-test-key")},
		Visible: func(ctx context.Context, tool ferry.ToolInfo) bool {
			p, _ := ferry.PrincipalFromContext(ctx)
			for _, need := range tool.Scopes {
				if p == nil || !slices.Contains(p.Scopes, need) {
					return false
				}
			}
			return true
		},
	})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ran")), nil
	}
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks things up.", ReadOnly: true}, ok)
	if withPayroll {
		// Its region is mirrored in an Mcp-Param header, whose check must not
		// tell a hidden tool from an unknown one either.
		srv.AddTool(ferry.Tool{Name: "payroll", Description: "Runs the payroll.", Scopes: []string{"hr"},
			RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}, ok)
	}
	ts := httptest.NewServer(asUser(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A tool hidden from the caller answers tools/call byte for byte as a tool
// that does not exist, in both eras, and is absent from its list.
func TestHiddenToolAnswersLikeUnknownTool(t *testing.T) {
	hidden, absent := scopedServer(t, true), scopedServer(t, false)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	legacy := func(url, body string) string {
		_, session, _ := post(t, url, "bob", "", initialize)
		status, _, answer := post(t, url, "bob", session, body, "Mcp-Protocol-Version", "2025-11-25")
		return http.StatusText(status) + " " + answer
	}
	modern := func(url, body string) string {
		status, _, answer := post(t, url, "bob", "", body, "Mcp-Protocol-Version", "2026-07-28",
			"Mcp-Method", "tools/call", "Mcp-Name", "payroll")
		return http.StatusText(status) + " " + answer
	}
	tests := []struct {
		name string
		send func(url, body string) string
		body string
	}{
		{"legacy", legacy, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"payroll","arguments":{"region":"eu"}}}`},
		{"2026-07-28", modern, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"payroll","arguments":{"region":"eu"},` + modernMeta + `}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := tt.send(hidden, tt.body), tt.send(absent, tt.body)
			if got != want {
				t.Errorf("hidden tool answered\n%s\nunknown tool answered\n%s", got, want)
			}
			if !strings.Contains(want, `unknown tool \"payroll\"`) {
				t.Errorf("unknown tool answered %s", want)
			}
		})
	}
	list := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}`
	for user, want := range map[string]bool{"bob": false, "hr-alice": true} {
		req := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}
		if user == "hr-alice" {
			req = append(req, "X-Scopes", "hr")
		}
		_, _, answer := post(t, hidden, user, "", list, req...)
		if got := strings.Contains(answer, `"payroll"`); got != want {
			t.Errorf("tools/list for %s lists payroll: %t, want %t: %s", user, got, want, answer)
		}
	}
}

// A modern list is "private" to shared caches when its contents depend on
// the caller, and "public" otherwise.
func TestListCacheScopeIsPrivateWhenVisibleIsSet(t *testing.T) {
	for _, tt := range []struct {
		name    string
		visible func(context.Context, ferry.ToolInfo) bool
		want    string
	}{
		{"no Visible", nil, `"cacheScope":"public"`},
		{"Visible", func(context.Context, ferry.ToolInfo) bool { return true }, `"cacheScope":"private"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, Visible: tt.visible})
			srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				return nil, nil
			})
			in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}` + "\n"
			var out strings.Builder
			if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("tools/list = %s; want %s", out.String(), tt.want)
			}
		})
	}
}
