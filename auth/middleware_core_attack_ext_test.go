package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// A legacy session opened by one principal is refused (404, as an
// unknown session) to another authenticated through the middleware, and
// a session id without a credential gets 401: a session id is never
// proof of identity.
func TestAttackSessionOfAnother(t *testing.T) {
	p := newProtected(t, nil)
	alice := bearer(rsaToken(t, claims("alice", "orders:read")))
	bob := bearer(rsaToken(t, claims("bob", "orders:read")))
	session := initialize(t, p.url, alice...)
	if got := legacyCall(t, p.url, session, "echo", bob...); got.status != http.StatusNotFound || strings.Contains(got.body, "alice") {
		t.Errorf("bob on alice's session: %+v, want 404 naming no one", got)
	}
	if got := legacyCall(t, p.url, session, "echo", "X-API-Key", adminKey); got.status != http.StatusNotFound {
		t.Errorf("an API key's principal on alice's session: %+v, want 404", got)
	}
	if got := legacyCall(t, p.url, session, "echo"); got.status != http.StatusUnauthorized {
		t.Errorf("alice's session without a credential: %+v, want 401", got)
	}
	if got := legacyCall(t, p.url, session+"x", "echo", alice...); got.status != http.StatusNotFound {
		t.Errorf("a forged session id: %+v, want 404", got)
	}
	if n := p.ran.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	if got := legacyCall(t, p.url, session, "echo", alice...); got.status != http.StatusOK || !strings.Contains(got.body, "hello alice") {
		t.Errorf("alice on her session: %+v", got)
	}
}

// The request state a server hands one principal (with an
// input_required result) cannot be replayed by another.
func TestAttackRequestStateReplay(t *testing.T) {
	p := newProtected(t, nil)
	alice := bearer(rsaToken(t, claims("alice")))
	bob := bearer(rsaToken(t, claims("bob")))
	first := modernCall(t, p.url, "wipe", "", alice...)
	var msg struct {
		Result struct {
			ResultType   string          `json:"resultType"`
			RequestState json.RawMessage `json:"requestState"`
		}
		Error *struct{ Code int }
	}
	if err := json.Unmarshal([]byte(first.body), &msg); err != nil || msg.Result.ResultType != "input_required" {
		t.Fatalf("first call: %+v (%v)", first, err)
	}
	retry := `,"inputResponses":{"q1":{"action":"accept"}},"requestState":` + string(msg.Result.RequestState)
	got := modernCall(t, p.url, "wipe", retry, bob...)
	msg.Error = nil
	if err := json.Unmarshal([]byte(got.body), &msg); err != nil || msg.Error == nil || msg.Error.Code != -32602 {
		t.Errorf("bob replays alice's state: %+v, want error -32602", got)
	}
	if n := p.ran.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
	if got := modernCall(t, p.url, "wipe", retry, alice...); got.status != http.StatusOK || !strings.Contains(got.body, "wiped") {
		t.Errorf("alice's own retry: %+v", got)
	}
}

// Every method is authenticated: a GET stream or a DELETE of a session
// without a credential gets 401 before the handler sees it.
func TestAttackEveryMethodNeedsACredential(t *testing.T) {
	p := newProtectedWith(t, setup{http: &ferry.HTTPOptions{Stateful: true}})
	alice := bearer(rsaToken(t, claims("alice")))
	session := initialize(t, p.url, alice...)
	for _, method := range []string{"GET", "DELETE", "PUT"} {
		req, _ := http.NewRequestWithContext(t.Context(), method, p.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s without a credential: %d %q, want 401 with a challenge", method, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if got := legacyCall(t, p.url, session, "echo", alice...); got.status != http.StatusOK {
		t.Errorf("the session still serves alice: %+v", got)
	}
}

// An API key's caller and a JWT whose sub is the key's subject are two
// callers: the JWT cannot use the session the key opened (stateless or
// stored), replay the request state handed to the key, or spend the key's
// call budget, nor the other way around.
func TestAttackCredentialKindsAreDifferentCallers(t *testing.T) {
	key := []string{"X-API-Key", adminKey}
	lookalike := bearer(rsaToken(t, claims("key:admin", "orders:read")))
	for _, stateful := range []bool{false, true} {
		p := newProtectedWith(t, setup{http: &ferry.HTTPOptions{Stateful: stateful}})
		session := initialize(t, p.url, key...)
		if got := legacyCall(t, p.url, session, "echo", lookalike...); got.status != http.StatusNotFound {
			t.Errorf("stateful %v: a JWT with the key's subject on the key's session: %+v, want 404", stateful, got)
		}
		session = initialize(t, p.url, lookalike...)
		if got := legacyCall(t, p.url, session, "echo", key...); got.status != http.StatusNotFound {
			t.Errorf("stateful %v: the key on the session of a JWT with its subject: %+v, want 404", stateful, got)
		}
		if n := p.ran.Load(); n != 0 {
			t.Errorf("stateful %v: the tool ran %d times", stateful, n)
		}
	}

	p := newProtectedWith(t, setup{server: &ferry.ServerOptions{Limits: ferry.Limits{CallRate: 0.001, CallBurst: 1}}})
	if got := modernCall(t, p.url, "echo", "", key...); !strings.Contains(got.body, "hello key:admin") {
		t.Fatalf("the key's first call: %+v", got)
	}
	if got := modernCall(t, p.url, "echo", "", key...); !strings.Contains(got.body, "too many calls") {
		t.Fatalf("the key's second call: %+v, want refused by the rate limit", got)
	}
	if got := modernCall(t, p.url, "echo", "", lookalike...); !strings.Contains(got.body, "hello key:admin") {
		t.Errorf("a JWT with the key's subject, after the key spent its budget: %+v, want served", got)
	}

	p = newProtected(t, nil)
	first := modernCall(t, p.url, "wipe", "", key...)
	var msg struct {
		Result struct {
			ResultType   string          `json:"resultType"`
			RequestState json.RawMessage `json:"requestState"`
		}
	}
	if err := json.Unmarshal([]byte(first.body), &msg); err != nil || msg.Result.ResultType != "input_required" {
		t.Fatalf("first call: %+v (%v)", first, err)
	}
	retry := `,"inputResponses":{"q1":{"action":"accept"}},"requestState":` + string(msg.Result.RequestState)
	if got := modernCall(t, p.url, "wipe", retry, lookalike...); !strings.Contains(got.body, "-32602") {
		t.Errorf("a JWT with the key's subject replays the key's state: %+v, want error -32602", got)
	}
	if n := p.ran.Load(); n != 0 {
		t.Fatalf("the tool ran %d times", n)
	}
}

// These cases check that the core's enforcement of Tool.Roles and
// Tool.Scopes, ServerOptions.StepUp and HTTPOptions.ResourceMetadataURL
// agree with the middleware: the challenge of a 403 has the format of
// auth.Challenge.

// purge needs the role admin; report needs the scopes orders:read and
// audit:read.
func withRestrictedTools(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "purge", Description: "Purges.", Roles: []string{"admin"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("purged")), nil
		})
	srv.AddTool(ferry.Tool{Name: "report", Description: "Reports.", ReadOnly: true, Scopes: []string{"orders:read", "audit:read"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("reported")), nil
		})
}

// A valid token lacking a role calls a hidden tool: it gets exactly the
// unknown-tool answer, and the tool is absent from a private list.
func TestAttackHiddenToolAnswersAsUnknown(t *testing.T) {
	p := newProtectedWith(t, setup{tools: withRestrictedTools})
	bare := newProtected(t, nil) // the same server without purge and report
	bob := bearer(rsaToken(t, claims("bob", "orders:read")))
	got, want := modernCall(t, p.url, "purge", "", bob...), modernCall(t, bare.url, "purge", "", bob...)
	if got != want {
		t.Errorf("hidden tool: got %+v, want the unknown tool's %+v", got, want)
	}
	list := do(t, p.url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		append([]string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}, bob...)...)
	if strings.Contains(list.body, `"purge"`) || !strings.Contains(list.body, `"cacheScope":"private"`) {
		t.Errorf("tools/list for bob: %s; want no purge, cacheScope private", list.body)
	}
	admin := modernCall(t, p.url, "purge", "", "X-API-Key", adminKey)
	if admin.status != http.StatusOK || !strings.Contains(admin.body, "purged") {
		t.Errorf("the admin key calls purge: %+v", admin)
	}
}

// A valid token lacking scopes calls a step-up tool: 403 with one
// challenge naming exactly the missing scopes, in the format of
// auth.Challenge, and the tool does not run.
func TestAttackStepUpChallengeNamesMissingScopes(t *testing.T) {
	res, err := auth.NewResource(testResource, []string{testIssuer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newProtectedWith(t, setup{
		tools:  withRestrictedTools,
		server: &ferry.ServerOptions{StepUp: true},
		http:   &ferry.HTTPOptions{ResourceMetadataURL: res.MetadataURL()},
	})
	alice := bearer(rsaToken(t, claims("alice", "orders:read")))
	for _, era := range []string{"modern", "legacy"} {
		var got answer
		if era == "modern" {
			got = modernCall(t, p.url, "report", "", alice...)
		} else {
			got = legacyCall(t, p.url, initialize(t, p.url, alice...), "report", alice...)
		}
		want := auth.Challenge{Error: auth.ErrorInsufficientScope, Scopes: []string{"audit:read"}, ResourceMetadata: testMetadata}.String()
		if got.status != http.StatusForbidden || !strings.HasPrefix(got.challenge, want) {
			t.Errorf("%s: status %d, challenge %q; want 403 and a challenge starting %q", era, got.status, got.challenge, want)
		}
	}
	full := bearer(rsaToken(t, claims("alice", "orders:read", "audit:read")))
	if got := modernCall(t, p.url, "report", "", full...); got.status != http.StatusOK || !strings.Contains(got.body, "reported") {
		t.Errorf("with every scope: %+v", got)
	}
}
