package auth_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
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
