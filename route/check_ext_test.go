package route_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// checkErrors binds tools with bind and returns the lines of the server's
// Check error.
func checkErrors(t *testing.T, h http.Handler, opts *route.Options, bind func(b *route.Binding)) (*mcpServer, []string) {
	t.Helper()
	m := newMCPServer(t)
	bind(route.New(m.srv, h, opts))
	err := m.srv.Check()
	if err == nil {
		return m, nil
	}
	return m, strings.Split(err.Error(), "\n")
}

func TestStartUpCheckNamesTheToolAndTheRoute(t *testing.T) {
	type objIn struct {
		ID     string            `json:"id" doc:"The order."`
		Filter map[string]string `json:"filter,omitempty" doc:"An object."`
	}
	type nestedIn struct {
		Rows [][]int `json:"rows" doc:"An array of arrays."`
	}
	type badTagIn struct {
		ID   string `json:"id" doc:"The order." in:"query"`
		Kind string `json:"kind" doc:"A kind." in:"cookie"`
		Host string `json:"host" doc:"A host." in:"header=Host"`
		Path string `json:"path" doc:"A path." in:"path"`
	}
	tests := []struct {
		name string
		bind func(b *route.Binding)
		want string
	}{
		{"missing route", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "refund", Description: "Refunds."}, "POST /refunds")
		}, `route: tool "refund", route "POST /refunds": the mux serves no such route`},
		{"wrong method", func(b *route.Binding) {
			route.AddTool[optionalIDIn](b, ferry.Tool{Name: "patch_order", Description: "Patches."}, "PATCH /orders/{id}")
		}, `route: tool "patch_order", route "PATCH /orders/{id}": the mux serves no such route`},
		{"other wildcard name", func(b *route.Binding) {
			b.AddTool(ferry.Tool{Name: "get", Description: "Gets.",
				RawInputSchema: json.RawMessage(`{"type":"object","properties":{"order":{"type":"string"}}}`)}, "GET /orders/{order}")
		}, `route: tool "get", route "GET /orders/{order}": the mux serves it with the pattern "GET /orders/{id}" instead`},
		{"a route another pattern serves", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "orders_new", Description: "New."}, "GET /orders/new")
		}, `route: tool "orders_new", route "GET /orders/new": the mux serves it with the pattern "GET /orders/{id}" instead`},
		{"no method", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "x", Description: "X."}, "/notes")
		}, `route: tool "x", route "/notes": a route is a method and a path, such as "POST /orders/{id}/cancel"`},
		{"a host", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "x", Description: "X."}, "GET example.com/notes")
		}, `route: tool "x", route "GET example.com/notes": path "example.com/notes": it must start with "/" (a host is not allowed)`},
		{"an unknown method", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "x", Description: "X."}, "BREW /pot")
		}, `route: tool "x", route "BREW /pot": method "BREW": a route-bound tool uses one of GET, HEAD, POST, PUT, PATCH, DELETE`},
		{"a wildcard without a property", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "x", Description: "X."}, "GET /orders/{id}")
		}, `route: tool "x", route "GET /orders/{id}": wildcard {id}: the input schema has no property "id" to fill it`},
		{"a wildcard without a schema", func(b *route.Binding) {
			b.AddTool(ferry.Tool{Name: "x", Description: "X."}, "GET /orders/{id}")
		}, `route: tool "x", route "GET /orders/{id}": wildcard {id}: the tool needs an input schema with a property "id" to fill it`},
		{"a wildcard in the middle of a segment", func(b *route.Binding) {
			route.AddTool[fileIn](b, ferry.Tool{Name: "x", Description: "X."}, "GET /files/{path}.txt")
		}, `route: tool "x", route "GET /files/{path}.txt": path "/files/{path}.txt": a wildcard must be a whole segment, not "{path}.txt"`},
		{"a rest wildcard not last", func(b *route.Binding) {
			route.AddTool[fileIn](b, ferry.Tool{Name: "x", Description: "X."}, "GET /files/{path...}/meta")
		}, `route: tool "x", route "GET /files/{path...}/meta": path "/files/{path...}/meta": {$} and {name...} must come last`},
		{"an object in the query", func(b *route.Binding) {
			route.AddTool[objIn](b, ferry.Tool{Name: "find", Description: "Finds."}, "GET /orders/{id}")
		}, `route: tool "find", route "GET /orders/{id}": property "filter" is an object: the query string holds strings, numbers, booleans and arrays of them`},
		{"an array of arrays in the query", func(b *route.Binding) {
			route.AddTool[nestedIn](b, ferry.Tool{Name: "rows", Description: "Rows."}, "GET /status")
		}, `route: tool "rows", route "GET /status": property "rows" is an array of arrays: the query string holds arrays of strings, numbers and booleans`},
		{"bad in tags", func(b *route.Binding) {
			route.AddTool[badTagIn](b, ferry.Tool{Name: "tags", Description: "Tags."}, "POST /orders/{id}/cancel")
		}, `route: tool "tags", route "POST /orders/{id}/cancel": wildcard {id}: property "id" is tagged in:"query", but fills the path` + "\n" +
			`route: tool "tags", route "POST /orders/{id}/cancel": field "host": header Host is set by the binding` + "\n" +
			`route: tool "tags", route "POST /orders/{id}/cancel": field "kind": tag in:"cookie": want in:"query", in:"query=name", in:"header=Name", in:"path" or in:"body"` + "\n" +
			`route: tool "tags", route "POST /orders/{id}/cancel": field "path" is tagged in:"path", but the path has no wildcard {path}`},
		{"schemas given to a typed tool", func(b *route.Binding) {
			route.AddTool[noIn](b, ferry.Tool{Name: "x", Description: "X.", RawInputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /status")
		}, `route: tool "x", route "GET /status": its schemas come from its Go types: leave InputSchema and OutputSchema unset`},
		{"an output type that is not an object", func(b *route.Binding) {
			route.AddToolOut[noIn, []string](b, ferry.Tool{Name: "x", Description: "X."}, "GET /status")
		}, `route: tool "x", route "GET /status": output type []string: its schema must be an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, lines := checkErrors(t, service(nil), nil, tt.bind)
			if got := strings.Join(lines, "\n"); got != tt.want {
				t.Errorf("Check:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestAMissingRouteKeepsTheHandlerFromStarting(t *testing.T) {
	m := newMCPServer(t)
	route.AddTool[noIn](route.New(m.srv, service(nil), nil), ferry.Tool{Name: "refund", Description: "Refunds."}, "POST /refunds")
	defer func() {
		v := recover()
		if s, _ := v.(string); !strings.Contains(s+errorString(v), `tool "refund", route "POST /refunds"`) {
			t.Errorf("NewHTTPHandler panicked with %v, want the missing route named", v)
		}
	}()
	ferry.NewHTTPHandler(m.srv, nil)
}

func errorString(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	return ""
}

func TestRoutesAreCheckedThroughMiddlewareWithARouter(t *testing.T) {
	mux := service(nil)
	wrapped := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mux.ServeHTTP(w, r) })
	bind := func(b *route.Binding) {
		route.AddTool[optionalIDIn](b, ferry.Tool{Name: "get", Description: "Gets."}, "GET /orders/{id}")
		route.AddTool[noIn](b, ferry.Tool{Name: "head", Description: "Heads."}, "HEAD /status")
		route.AddTool[noIn](b, ferry.Tool{Name: "refund", Description: "Refunds."}, "POST /refunds")
	}
	want := `route: tool "refund", route "POST /refunds": the mux serves no such route`
	if _, lines := checkErrors(t, wrapped, &route.Options{Router: route.ServeMux(mux)}, bind); strings.Join(lines, "\n") != want {
		t.Errorf("with ServeMux(mux): %q, want %q", lines, want)
	}
	want = `route: tool "refund", route "POST /refunds": the router serves no such route`
	if _, lines := checkErrors(t, wrapped, &route.Options{Router: matcherFunc(route.ServeMux(mux).Match)}, bind); strings.Join(lines, "\n") != want {
		t.Errorf("with a Matcher: %q, want %q", lines, want)
	}
	m, lines := checkErrors(t, wrapped, nil, bind)
	if lines != nil {
		t.Errorf("with no router: %q, want warnings only", lines)
	}
	warned := map[string]string{}
	for _, rec := range m.logs.Records(t, "route: cannot check that the handler serves the route: set Options.Router") {
		warned[rec["tool"].(string)] = rec["route"].(string) + " " + rec["level"].(string)
	}
	if len(warned) != 3 || warned["refund"] != "POST /refunds WARN" || warned["get"] != "GET /orders/{id} WARN" {
		t.Errorf("warnings %v", warned)
	}
}

// matcherFunc is a Matcher of any router.
type matcherFunc func(method, path string) bool

func (f matcherFunc) Match(method, path string) bool { return f(method, path) }

func TestAFieldCannotSetAForwardedOrFixedHeader(t *testing.T) {
	type keyIn struct {
		ID    string `json:"id" doc:"The order."`
		Key   string `json:"key" doc:"A key." in:"header=x-api-key"`
		Token string `json:"token" doc:"A token." in:"header=X-Service-Token"`
	}
	_, lines := checkErrors(t, service(nil), &route.Options{Forward: []string{"X-API-Key"}, Header: http.Header{"x-service-token": {"s"}}},
		func(b *route.Binding) {
			route.AddTool[keyIn](b, ferry.Tool{Name: "get", Description: "Gets."}, "GET /orders/{id}")
		})
	want := []string{
		`route: tool "get", route "GET /orders/{id}": field "key": header X-Api-Key is forwarded from the MCP request (Options.Forward)`,
		`route: tool "get", route "GET /orders/{id}": field "token": header X-Service-Token is fixed by Options.Header`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check: %q, want %q", lines, want)
	}
}

func TestOptionsThatWouldSetTheBindingsOwnHeadersFailTheCheck(t *testing.T) {
	_, lines := checkErrors(t, service(nil), &route.Options{Forward: []string{"Mcp-Tool", "X Tenant"},
		Header: http.Header{"X-Request-Id": {"1"}, "X:Tenant": {"1"}}},
		func(*route.Binding) {})
	want := []string{
		`route: Options.Forward: "Mcp-Tool" cannot be forwarded: the binding sets it`,
		`route: Options.Forward: "X Tenant" is not a header name`,
		`route: Options.Header: "X-Request-Id" cannot be set: the binding sets it`,
		`route: Options.Header: "X:Tenant" is not a header name`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Check: %q, want %q", lines, want)
	}
}
