package ferrytest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// The kit's server answers the protocol correctly in both eras.
func TestCheckServer(t *testing.T) {
	ferrytest.CheckServer(t, newServer())
}

// A server with nothing but the handshake passes too.
func TestCheckServerEmpty(t *testing.T) {
	ferrytest.CheckServer(t, ferry.NewServer("empty", "0", nil))
}

// A server limited to legacy versions is checked in the legacy era.
func TestCheckServerLegacyOnly(t *testing.T) {
	srv := ferry.NewServer("old", "1", &ferry.ServerOptions{ProtocolVersions: []string{ferry.Version20250618}})
	ferry.AddTool(srv, ferry.Tool{Name: "greet", Description: "Greets someone by name.", ReadOnly: true},
		func(_ context.Context, in greetIn) (greetOut, error) { return greetOut{Greeting: "Hi " + in.Name}, nil })
	ferrytest.CheckServer(t, srv)
}

// rewrite serves h, passing each JSON-RPC request through fix: fix returns
// the answer to send instead (status and body), or rewrites the answer h
// gave (res is h's answer, decoded).
type rewrite struct {
	h   http.Handler
	fix func(req map[string]any, legacy bool, res map[string]any) (int, any)
}

func (rw *rewrite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	rec := httptest.NewRecorder()
	rw.h.ServeHTTP(rec, r)
	var res map[string]any
	if req == nil || json.Unmarshal(rec.Body.Bytes(), &res) != nil {
		if status, out := rw.fix(req, false, nil); out != nil {
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(out)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
		return
	}
	legacy := r.Header.Get("Mcp-Session-Id") != "" || req["method"] == "initialize"
	status, out := rw.fix(req, legacy, res)
	if out == nil {
		status, out = rec.Code, res
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

// tools returns the tools of a tools/list answer, or nil.
func tools(req, res map[string]any) []any {
	if req["method"] != "tools/list" {
		return nil
	}
	result, _ := res["result"].(map[string]any)
	list, _ := result["tools"].([]any)
	return list
}

// CheckServer fails on servers that break the protocol, each with a
// problem that names what is wrong.
func TestCheckServerFindsProblems(t *testing.T) {
	calls := 0
	cases := []struct {
		name string
		fix  func(req map[string]any, legacy bool, res map[string]any) (int, any)
		want string
	}{
		{"hints dropped", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				delete(tl.(map[string]any), "annotations")
			}
			return 0, nil
		}, `tool "greet" has no annotations`},
		{"a hint dropped", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				delete(tl.(map[string]any)["annotations"].(map[string]any), "openWorldHint")
			}
			return 0, nil
		}, `tool "greet" does not set openWorldHint`},
		{"no description", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				delete(tl.(map[string]any), "description")
			}
			return 0, nil
		}, `tool "greet" has no description`},
		{"a bad pattern", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				if tl.(map[string]any)["name"] == "greet" {
					tl.(map[string]any)["inputSchema"].(map[string]any)["properties"].(map[string]any)["name"].(map[string]any)["pattern"] = "(["
				}
			}
			return 0, nil
		}, `tool "greet": inputSchema: name.pattern "([" does not compile`},
		{"a required property not declared", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				if tl.(map[string]any)["name"] == "greet" {
					tl.(map[string]any)["inputSchema"].(map[string]any)["required"] = []any{"name", "age"}
				}
			}
			return 0, nil
		}, `tool "greet": inputSchema: required property "age" is not declared`},
		{"a tool listed twice", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if list := tools(req, res); len(list) > 0 {
				res["result"].(map[string]any)["tools"] = append(list, list[len(list)-1])
			}
			return 0, nil
		}, "is listed twice"},
		{"not an object schema", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				tl.(map[string]any)["inputSchema"] = map[string]any{"type": "string"}
			}
			return 0, nil
		}, `inputSchema: type is string, not "object"`},
		{"a bad name", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			for _, tl := range tools(req, res) {
				if tl.(map[string]any)["name"] == "greet" {
					tl.(map[string]any)["name"] = "greet me"
				}
			}
			return 0, nil
		}, `tool "greet me": name has ' '; use only A-Z`},
		{"an order that changes", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if list := tools(req, res); len(list) == 2 {
				calls++
				if calls%2 == 0 {
					list[0], list[1] = list[1], list[0]
				}
			}
			return 0, nil
		}, "tools/list is not deterministic"},
		{"eras that differ", func(req map[string]any, legacy bool, res map[string]any) (int, any) {
			if list := tools(req, res); legacy && len(list) > 0 {
				res["result"].(map[string]any)["tools"] = list[:len(list)-1]
			}
			return 0, nil
		}, "the eras list different tools"},
		{"unknown tool as internal error", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if p, _ := req["params"].(map[string]any); req["method"] == "tools/call" && p["name"] == "ferrytest-no-such-name" {
				return 200, map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{"code": -32603, "message": "boom"}}
			}
			return 0, nil
		}, "calling an unknown tool"},
		{"unknown resource as a result", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if req["method"] == "resources/read" {
				return 200, map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"contents": []any{}}}
			}
			return 0, nil
		}, "reading an unknown resource"},
		{"garbage accepted", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if req == nil {
				return 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}}
			}
			return 0, nil
		}, "a body that is not JSON: got HTTP 200"},
		{"a prompt without a name", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if req["method"] == "prompts/list" {
				for _, p := range res["result"].(map[string]any)["prompts"].([]any) {
					delete(p.(map[string]any), "name")
				}
			}
			return 0, nil
		}, "a prompt has no name"},
		{"a relative resource URI", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if req["method"] == "resources/list" {
				for _, r := range res["result"].(map[string]any)["resources"].([]any) {
					r.(map[string]any)["uri"] = "motd"
				}
			}
			return 0, nil
		}, `resource "motd": the URI is not absolute`},
		{"a template without a name", func(req map[string]any, _ bool, res map[string]any) (int, any) {
			if req["method"] == "resources/templates/list" {
				for _, r := range res["result"].(map[string]any)["resourceTemplates"].([]any) {
					delete(r.(map[string]any), "name")
				}
			}
			return 0, nil
		}, "has no URI template or no name"},
		{"unknown prompt as internal error", func(req map[string]any, _ bool, _ map[string]any) (int, any) {
			if req["method"] == "prompts/get" {
				return 200, map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{"code": -32603, "message": "boom"}}
			}
			return 0, nil
		}, "getting an unknown prompt"},
		{"a made-up cursor accepted", func(req map[string]any, _ bool, _ map[string]any) (int, any) {
			if p, _ := req["params"].(map[string]any); req["method"] == "tools/list" && p["cursor"] == "ferrytest-no-such-name" {
				return 200, map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"tools": []any{}}}
			}
			return 0, nil
		}, "tools/list with a cursor the server never gave"},
		{"JSON-RPC 1.0 accepted", func(req map[string]any, _ bool, _ map[string]any) (int, any) {
			if req != nil && req["jsonrpc"] == nil && req["method"] == "ping" {
				return 200, map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{}}
			}
			return 0, nil
		}, "a request of JSON-RPC 1.0: got HTTP 200"},
		{"ping failing", func(req map[string]any, legacy bool, _ map[string]any) (int, any) {
			if legacy && req["method"] == "ping" && req["jsonrpc"] != nil {
				return 200, map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{"code": -32603, "message": "boom"}}
			}
			return 0, nil
		}, "ping: "},
		{"unknown method without 404", func(req map[string]any, legacy bool, res map[string]any) (int, any) {
			if req["method"] == "ferrytest/no_such_method" {
				return 200, res
			}
			return 0, nil
		}, "an unknown method: HTTP status 200, want 404"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer()
			h := &rewrite{h: ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}), fix: tc.fix}
			errs := failures(t, func(tb testing.TB) { ferrytest.CheckHandler(tb, h) })
			found := false
			for _, e := range errs {
				found = found || strings.Contains(e, tc.want)
			}
			if !found {
				t.Errorf("failures %q: want one containing %q", errs, tc.want)
			}
		})
	}
}
