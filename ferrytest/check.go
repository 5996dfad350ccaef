package ferrytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/toolname"
)

// CheckServer checks that srv answers the protocol correctly in both eras
// (see [CheckHandler]), after its start-up check ([ferry.Server.Check]).
// It calls no tool, so it is safe on a server whose tools write.
func CheckServer(t testing.TB, srv *ferry.Server) {
	t.Helper()
	if err := srv.Check(); err != nil {
		t.Errorf("ferrytest: the server fails its start-up check:\n%v", err)
		return
	}
	CheckHandler(t, ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true}))
}

// CheckHandler checks that the MCP server h serves over Streamable HTTP
// answers the protocol correctly, in the modern era if it speaks it and in
// the newest legacy version it speaks: the handshake; that every listed
// tool, prompt, resource and template is well formed (names, descriptions,
// schemas that are objects, whose patterns compile and whose required
// properties exist, every tool hint set); that lists are deterministic and hold no duplicates
// across pages; that an unknown tool, prompt, resource, method and cursor
// get the right errors; that malformed requests get the right protocol
// errors; that ping (discover in the modern era) answers; and that both
// eras list the same tools. Each problem is reported with t.Errorf.
func CheckHandler(t testing.TB, h http.Handler) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	first, err := client.DialHandler(ctx, h, nil)
	if err != nil {
		t.Errorf("ferrytest: the handshake failed: %v", err)
		return
	}
	defer first.Close()
	clients := []*client.Client{first}
	if first.Modern() {
		if v := newestLegacy(first.ServerInfo().SupportedVersions); v != "" {
			legacy, err := client.DialHandler(ctx, h, &client.Options{Protocol: v})
			if err != nil {
				t.Errorf("ferrytest: the server offers %s, but initialize failed: %v", v, err)
			} else {
				defer legacy.Close()
				clients = append(clients, legacy)
			}
		}
	}
	var names [][]string
	for _, c := range clients {
		ck := &checker{t: t, c: c, era: c.Protocol()}
		names = append(names, ck.run(ctx))
	}
	if len(names) == 2 && !slices.Equal(names[0], names[1]) {
		t.Errorf("ferrytest: the eras list different tools: %s lists %v, %s lists %v",
			clients[0].Protocol(), names[0], clients[1].Protocol(), names[1])
	}
	checkMalformed(t, h)
}

// newestLegacy returns the newest legacy version in versions, or "".
func newestLegacy(versions []string) string {
	for _, v := range []string{client.Version20251125, client.Version20250618, client.Version20250326} {
		if slices.Contains(versions, v) {
			return v
		}
	}
	return ""
}

// checker checks one era of one server.
type checker struct {
	t   testing.TB
	c   *client.Client
	era string
}

func (ck *checker) errorf(format string, args ...any) {
	ck.t.Helper()
	ck.t.Errorf("ferrytest: %s: %s", ck.era, fmt.Sprintf(format, args...))
}

// run checks the era and returns the names of the tools it lists.
func (ck *checker) run(ctx context.Context) []string {
	ck.t.Helper()
	info := ck.c.ServerInfo()
	if info.Name == "" || info.Version == "" {
		ck.errorf("the server's info has no name or version: %s", info.Raw)
	}
	var caps map[string]json.RawMessage
	if err := json.Unmarshal(info.Capabilities, &caps); err != nil {
		ck.errorf("the server's capabilities are not an object: %s", info.Capabilities)
	}
	if err := ck.c.Ping(ctx); err != nil {
		ck.errorf("ping: %v", err)
	}
	var names []string
	if _, ok := caps["tools"]; ok {
		names = ck.tools(ctx)
	}
	if _, ok := caps["prompts"]; ok {
		ck.prompts(ctx)
	}
	_, hasResources := caps["resources"]
	if hasResources {
		ck.resources(ctx)
	}
	ck.unknown(ctx, caps)
	return names
}

// tools checks tools/list and returns the tool names.
func (ck *checker) tools(ctx context.Context) []string {
	ck.t.Helper()
	tools, ok := listTwice(ctx, ck, "tools/list", ck.c.ListTools, func(t client.Tool) []byte { return t.Raw })
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
		nameErr := toolname.Check(tl.Name)
		switch {
		case nameErr != nil:
			ck.errorf("tool %q: %v", tl.Name, nameErr)
		case seen[tl.Name]:
			ck.errorf("tool %q is listed twice", tl.Name)
		}
		seen[tl.Name] = true
		if strings.TrimSpace(tl.Description) == "" {
			ck.errorf("tool %q has no description", tl.Name)
		}
		for _, p := range schemaProblems(tl.InputSchema, true) {
			ck.errorf("tool %q: inputSchema: %s", tl.Name, p)
		}
		if len(tl.OutputSchema) > 0 {
			for _, p := range schemaProblems(tl.OutputSchema, !ck.c.Modern()) {
				ck.errorf("tool %q: outputSchema: %s", tl.Name, p)
			}
		}
		ck.hints(tl)
	}
	return names
}

// hints checks that a tool sets every hint, so that no client guesses.
func (ck *checker) hints(tl client.Tool) {
	ck.t.Helper()
	a := tl.Annotations
	if a == nil {
		ck.errorf("tool %q has no annotations: set readOnlyHint, destructiveHint, idempotentHint and openWorldHint", tl.Name)
		return
	}
	var missing []string
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnlyHint", a.ReadOnlyHint}, {"destructiveHint", a.DestructiveHint}, {"idempotentHint", a.IdempotentHint}, {"openWorldHint", a.OpenWorldHint}} {
		if h.v == nil {
			missing = append(missing, h.name)
		}
	}
	if len(missing) > 0 {
		ck.errorf("tool %q does not set %s", tl.Name, strings.Join(missing, ", "))
	}
}

// schemaProblems lists what is wrong with a tool schema: not an object
// schema (when object is set), a pattern that does not compile, a required
// property that is not declared. Portability (what some clients reject,
// such as $ref) is not checked: a server may choose it, and ferry lint
// reports it.
func schemaProblems(raw json.RawMessage, object bool) []string {
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		return []string{"not a JSON object"}
	}
	var out []string
	if object && s["type"] != "object" {
		out = append(out, fmt.Sprintf(`type is %v, not "object"`, s["type"]))
	}
	walkSchema(s, "", func(path string, node map[string]any) {
		if p, ok := node["pattern"].(string); ok {
			if _, err := regexp.Compile(p); err != nil {
				out = append(out, fmt.Sprintf("%spattern %q does not compile: %v", path, p, err))
			}
		}
		// A required list beside properties names them; one without (in
		// an anyOf branch, say) refers to its parent's.
		props, hasProps := node["properties"].(map[string]any)
		if req, ok := node["required"].([]any); ok && hasProps {
			for _, r := range req {
				name, _ := r.(string)
				if _, ok := props[name]; !ok {
					out = append(out, fmt.Sprintf("%srequired property %q is not declared", path, name))
				}
			}
		}
	})
	return out
}

// walkSchema calls f on every subschema of node reached through
// properties, items and the combinators.
func walkSchema(node map[string]any, path string, f func(path string, node map[string]any)) {
	f(path, node)
	if props, ok := node["properties"].(map[string]any); ok {
		for _, k := range sortedKeys(props) {
			if sub, ok := props[k].(map[string]any); ok {
				walkSchema(sub, path+k+".", f)
			}
		}
	}
	if sub, ok := node["items"].(map[string]any); ok {
		walkSchema(sub, path+"items[].", f)
	}
	for _, comb := range []string{"anyOf", "oneOf", "allOf"} {
		subs, _ := node[comb].([]any)
		for i, s := range subs {
			if sub, ok := s.(map[string]any); ok {
				walkSchema(sub, fmt.Sprintf("%s%s[%d].", path, comb, i), f)
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// listTwice reads a list twice and returns the first, reporting a failure
// (then ok is false) and two reads that differ: a list must not change
// while nothing changes the server. raw is an item's JSON as sent.
func listTwice[T any](ctx context.Context, ck *checker, method string, list func(context.Context) ([]T, error), raw func(T) []byte) (items []T, ok bool) {
	ck.t.Helper()
	items, err := list(ctx)
	if err != nil {
		ck.errorf("%s: %v", method, err)
		return nil, false
	}
	again, err := list(ctx)
	if err != nil || !slices.EqualFunc(items, again, func(x, y T) bool { return bytes.Equal(raw(x), raw(y)) }) {
		ck.errorf("%s is not deterministic: two lists differ (%v)", method, err)
	}
	return items, true
}

// prompts checks prompts/list.
func (ck *checker) prompts(ctx context.Context) {
	ck.t.Helper()
	prompts, ok := listTwice(ctx, ck, "prompts/list", ck.c.ListPrompts, func(p client.Prompt) []byte { return p.Raw })
	if !ok {
		return
	}
	seen := map[string]bool{}
	for _, p := range prompts {
		switch {
		case p.Name == "":
			ck.errorf("a prompt has no name: %s", p.Raw)
		case seen[p.Name]:
			ck.errorf("prompt %q is listed twice", p.Name)
		}
		seen[p.Name] = true
		args := map[string]bool{}
		for _, a := range p.Arguments {
			if a.Name == "" || args[a.Name] {
				ck.errorf("prompt %q: argument %q is empty or repeated", p.Name, a.Name)
			}
			args[a.Name] = true
		}
	}
}

// resources checks resources/list and resources/templates/list.
func (ck *checker) resources(ctx context.Context) {
	ck.t.Helper()
	res, ok := listTwice(ctx, ck, "resources/list", ck.c.ListResources, func(r client.Resource) []byte { return r.Raw })
	if !ok {
		return
	}
	seen := map[string]bool{}
	for _, r := range res {
		if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
			ck.errorf("resource %q: the URI is not absolute", r.URI)
		}
		if r.Name == "" {
			ck.errorf("resource %q has no name", r.URI)
		}
		if seen[r.URI] {
			ck.errorf("resource %q is listed twice", r.URI)
		}
		seen[r.URI] = true
	}
	tmpls, err := ck.c.ListResourceTemplates(ctx)
	if err != nil {
		ck.errorf("resources/templates/list: %v", err)
		return
	}
	for _, tm := range tmpls {
		if tm.URITemplate == "" || tm.Name == "" {
			ck.errorf("resource template %q (%q) has no URI template or no name", tm.URITemplate, tm.Name)
		}
	}
}

// unknown checks the errors of what the server does not have.
func (ck *checker) unknown(ctx context.Context, caps map[string]json.RawMessage) {
	ck.t.Helper()
	const missing = "ferrytest-no-such-name"
	want := func(what string, err error, codes ...ferry.Code) {
		ck.t.Helper()
		re, ok := errors.AsType[*client.Error](err)
		if !ok || !slices.Contains(codes, re.Code) {
			ck.errorf("%s: got %v, want a JSON-RPC error %v", what, err, codes)
		}
	}
	if _, ok := caps["tools"]; ok {
		_, err := ck.c.CallTool(ctx, missing, nil)
		want("calling an unknown tool", err, ferry.CodeInvalidParams)
		err = ck.c.Call(ctx, "tools/list", map[string]string{"cursor": missing}, nil)
		want("tools/list with a cursor the server never gave", err, ferry.CodeInvalidParams)
	}
	if _, ok := caps["prompts"]; ok {
		_, err := ck.c.GetPrompt(ctx, missing, nil)
		want("getting an unknown prompt", err, ferry.CodeInvalidParams)
	}
	if _, ok := caps["resources"]; ok {
		_, err := ck.c.ReadResource(ctx, "ferrytest://"+missing)
		if ck.c.Modern() {
			want("reading an unknown resource", err, ferry.CodeInvalidParams)
		} else {
			want("reading an unknown resource", err, ferry.CodeResourceNotFound, ferry.CodeInvalidParams)
		}
	}
	err := ck.c.Call(ctx, "ferrytest/no_such_method", nil, nil)
	want("an unknown method", err, ferry.CodeMethodNotFound)
	if re, ok := errors.AsType[*client.Error](err); ok && ck.c.Modern() && re.HTTPStatus() != http.StatusNotFound {
		ck.errorf("an unknown method: HTTP status %d, want 404", re.HTTPStatus())
	}
}

// checkMalformed checks the answers to requests that are not JSON-RPC.
func checkMalformed(t testing.TB, h http.Handler) {
	t.Helper()
	for _, tc := range []struct {
		what, body string
		code       ferry.Code
	}{
		{"a body that is not JSON", `{"jsonrpc":"2.0","id":1,`, ferry.CodeParseError},
		{"a request without a method", `{"jsonrpc":"2.0","id":1,"params":{}}`, ferry.CodeInvalidRequest},
		{"a request of JSON-RPC 1.0", `{"id":1,"method":"ping"}`, ferry.CodeInvalidRequest},
	} {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "http://localhost/mcp", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		body, _ := io.ReadAll(w.Result().Body)
		var m struct {
			Error *client.Error `json:"error"`
		}
		if err := json.Unmarshal(body, &m); err != nil || m.Error == nil || m.Error.Code != tc.code || w.Code != http.StatusBadRequest {
			t.Errorf("ferrytest: %s: got HTTP %d %s, want 400 and JSON-RPC error %d", tc.what, w.Code, bytes.TrimSpace(body), tc.code)
		}
	}
}
