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
