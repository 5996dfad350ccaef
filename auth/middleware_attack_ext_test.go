package auth_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

// protected is a ferry server behind the auth middleware, as a user
// mounts it: metadata beside the MCP endpoint on one mux.
type protected struct {
	url  string // the MCP endpoint
	base string // the mux's root
	jwks *jwksServer
	keys *auth.RemoteKeySet
	ran  atomic.Int64 // calls of the tool "echo" that reached it
}

// The API keys the protected server knows.
const (
	adminKey = "k-admin-0123456789abcdef"
)

func newProtected(t *testing.T, ko *auth.RemoteKeySetOptions) *protected {
	t.Helper()
	return newProtectedWith(t, setup{keys: ko})
}

// setup varies the protected server.
type setup struct {
	keys   *auth.RemoteKeySetOptions
	server *ferry.ServerOptions
	http   *ferry.HTTPOptions
	tools  func(*ferry.Server) // adds tools beside echo and wipe
}

func newProtectedWith(t *testing.T, s setup) *protected {
	t.Helper()
	p := &protected{jwks: newJWKS(t)}
	ko := s.keys
	if ko == nil {
		ko = &auth.RemoteKeySetOptions{}
	}
	ko.Logger = discard
	var err error
	if p.keys, err = auth.NewRemoteKeySet(p.jwks.URL, ko); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.keys.Close() })
	res, err := auth.NewResource(testResource, []string{testIssuer}, &auth.ResourceOptions{Scopes: []string{"orders:read", "orders:write"}})
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := auth.NewJWT(&auth.JWTOptions{Keys: p.keys, Issuer: testIssuer, Audiences: []string{res.URI()}})
	if err != nil {
		t.Fatal(err)
	}
	static, err := auth.NewStaticKeys(map[string]*ferry.Principal{adminKey: {Subject: "key:admin", Roles: []string{"admin"}}})
	if err != nil {
		t.Fatal(err)
	}
	mw := auth.Middleware(&auth.Options{
		Authenticators: []auth.Authenticator{tokens, auth.APIKeys(static.Lookup, nil)},
		Resource:       res,
		Scopes:         []string{"orders:read"},
		Logger:         discard,
	})
	so := s.server
	if so == nil {
		so = &ferry.ServerOptions{}
	}
	so.Logger = discard
	srv := ferry.NewServer("orders", "1", so)
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Names the caller.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			p.ran.Add(1)
			who, _ := ferry.PrincipalFromContext(ctx)
			return ferry.NewResult(ferry.Text("hello " + who.Subject)), nil
		})
	srv.AddTool(ferry.Tool{Name: "wipe", Description: "Wipes, after asking."},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			if _, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?"}); err != nil {
				return nil, err
			}
			p.ran.Add(1)
			return ferry.NewResult(ferry.Text("wiped")), nil
		})
	if s.tools != nil {
		s.tools(srv)
	}
	mux := http.NewServeMux()
	res.Mount(mux)
	mux.Handle("/mcp", mw(ferry.NewHTTPHandler(srv, s.http)))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	p.base, p.url = ts.URL, ts.URL+"/mcp"
	return p
}

var discard = slog.New(slog.DiscardHandler)

// answer is what the tests compare.
type answer struct {
	status    int
	challenge string
	body      string
}

// modernCall calls tool in the 2026-07-28 era, with the headers in cred.
func modernCall(t *testing.T, url, tool, extra string, cred ...string) answer {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}` + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
	return do(t, url, body, append(wiretest.Modern("tools/call", tool), cred...)...)
}

// legacyCall calls tool on a 2025-11-25 session.
func legacyCall(t *testing.T, url, session, tool string, cred ...string) answer {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	return do(t, url, body, append([]string{"Mcp-Protocol-Version", "2025-11-25", "Mcp-Session-Id", session}, cred...)...)
}

// initialize opens a 2025-11-25 session with cred and returns its id.
func initialize(t *testing.T, url string, cred ...string) string {
	t.Helper()
	return wiretest.Initialize(t, url, cred...)
}

// do posts body to url with the header pairs and returns the answer.
func do(t *testing.T, url, body string, header ...string) answer {
	t.Helper()
	a := wiretest.Post(t, url, body, header...)
	return answer{a.Status, strings.Join(a.Header.Values("WWW-Authenticate"), " | "), a.Body}
}

func bearer(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

// refusedWith is the answer of a refused credential.
func refusedWith(reason string) answer {
	return answer{
		status:    http.StatusUnauthorized,
		challenge: `Bearer error="invalid_token", resource_metadata="` + testMetadata + `", error_description="` + reason + `"`,
		body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unauthorized: ` + reason + `"}}`,
	}
}

// Every way of presenting a bad credential, over the real HTTP handler,
// in both eras: each gets exactly the refusal it should, and the tool
// does not run; the good credentials reach the tool as their principal.
func TestAttackCredentials(t *testing.T) {
	p := newProtected(t, nil)
	k := testKeys()
	good := claims("alice", "orders:read")
	noCredential := answer{
		status:    http.StatusUnauthorized,
		challenge: `Bearer scope="orders:read", resource_metadata="` + testMetadata + `"`,
		body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"unauthorized: this server needs a credential"}}`,
	}
	queryToken := answer{
		status:    http.StatusBadRequest,
		challenge: `Bearer error="invalid_request", resource_metadata="` + testMetadata + `", error_description="tokens are not accepted in the query string"`,
		body:      `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad request: tokens are not accepted in the query string"}}`,
	}
	tests := []struct {
		name  string
		cred  []string
		query string
		want  answer
		ran   string // the subject the tool names, or "" when it must not run
	}{
		{name: "no token", want: noCredential},
		{name: "empty bearer", cred: []string{"Authorization", "Bearer "}, want: refusedWith("the Authorization header is malformed")},
		{name: "malformed token", cred: bearer("not a token!"), want: refusedWith("the Authorization header is malformed")},
		{name: "JWT-shaped garbage", cred: bearer("abc.def.ghi"), want: refusedWith("the token is invalid")},
		{name: "two Authorization headers", cred: append(bearer(rsaToken(t, good)), bearer(rsaToken(t, good))...), want: refusedWith("the Authorization header is malformed")},
		{name: "basic scheme", cred: []string{"Authorization", "Basic YWxpY2U6c2VjcmV0"}, want: refusedWith("the credential is not accepted")},
		{name: "oversized token", cred: bearer(strings.Repeat("a", auth.MaxTokenBytes) + ".b.c"), want: refusedWith("the Authorization header is malformed")},
		{name: "bad signature", cred: bearer(sign(t, "RS256", k.other, "rsa-1", good)), want: refusedWith("the token is invalid")},
		{name: "tampered payload", cred: bearer(tamper(rsaToken(t, good))), want: refusedWith("the token is invalid")},
		{name: "expired", cred: bearer(rsaToken(t, with(good, "exp", time.Now().Add(-2*time.Minute).Unix()))), want: refusedWith("the token has expired")},
		{name: "not yet valid", cred: bearer(rsaToken(t, with(good, "nbf", time.Now().Add(2*time.Minute).Unix()))), want: refusedWith("the token is not yet valid")},
		{name: "no exp", cred: bearer(rsaToken(t, with(good, "exp", nil))), want: refusedWith("the token is invalid")},
		{name: "exp a string", cred: bearer(rsaToken(t, with(good, "exp", "tomorrow"))), want: refusedWith("the token is invalid")},
		{name: "wrong audience", cred: bearer(rsaToken(t, with(good, "aud", "https://other.example.com/mcp"))), want: refusedWith("the token is invalid")},
		{name: "no audience", cred: bearer(rsaToken(t, with(good, "aud", nil))), want: refusedWith("the token is invalid")},
		{name: "wrong issuer", cred: bearer(rsaToken(t, with(good, "iss", "https://evil.example.com"))), want: refusedWith("the token is invalid")},
		{name: "no subject", cred: bearer(rsaToken(t, with(good, "sub", nil))), want: refusedWith("the token is invalid")},
		{name: "unknown kid", cred: bearer(sign(t, "RS256", k.other, "rsa-9", good)), want: refusedWith("the token is invalid")},
		{name: "alg none", cred: bearer(unsigned(t, "rsa-1", good)), want: refusedWith("the token is invalid")},
		{name: "HS256 with the RSA public key", cred: bearer(hmacWithPublicKey(t, good)), want: refusedWith("the token is invalid")},
		{name: "RS256 under the EC key's kid", cred: bearer(sign(t, "RS256", k.rsa, "ec-1", good)), want: refusedWith("the token is invalid")},
		{name: "token in the query string", query: "?access_token=" + rsaToken(t, good), want: queryToken},
		{name: "token in the query string beside a good one", cred: bearer(rsaToken(t, good)), query: "?access_token=x", want: queryToken},
		{name: "token in the query string, its name escaped", query: "?access%5Ftoken=x", want: queryToken},
		{name: "API key wrong", cred: []string{"X-API-Key", "k-admin-0123456789abcdeX"}, want: refusedWith("the API key is invalid")},
		{name: "API key wrong, as bearer", cred: bearer("k-admin-0123456789abcdeX"), want: refusedWith("the API key is invalid")},
		{name: "API key right", cred: []string{"X-API-Key", adminKey}, ran: "key:admin"},
		{name: "API key right, as bearer", cred: bearer(adminKey), ran: "key:admin"},
		{name: "RS256 token", cred: bearer(rsaToken(t, good)), ran: "alice"},
		{name: "ES256 token", cred: bearer(sign(t, "ES256", k.ec, "ec-1", with(good, "sub", "bob"))), ran: "bob"},
		{name: "expired within the leeway", cred: bearer(rsaToken(t, with(good, "exp", time.Now().Add(-10*time.Second).Unix()))), ran: "alice"},
		{name: "audience with a trailing slash, in a list", cred: bearer(rsaToken(t, with(good, "aud", []any{"https://x.example", testResource + "/"}))), ran: "alice"},
	}
	session := initialize(t, p.url, "X-API-Key", adminKey)
	for _, era := range []string{"modern", "legacy"} {
		for _, tt := range tests {
			t.Run(era+"/"+tt.name, func(t *testing.T) {
				before := p.ran.Load()
				var got answer
				if era == "modern" {
					got = modernCall(t, p.url+tt.query, "echo", "", tt.cred...)
				} else {
					got = legacyCall(t, p.url+tt.query, session, "echo", tt.cred...)
				}
				if tt.ran == "" {
					if got != tt.want {
						t.Errorf("got  %+v\nwant %+v", got, tt.want)
					}
					if n := p.ran.Load() - before; n != 0 {
						t.Errorf("the tool ran %d times", n)
					}
					return
				}
				wantLegacy := era == "legacy" && tt.ran != "key:admin"
				switch {
				case wantLegacy && got.status != http.StatusNotFound:
					// The session was opened by the API key's principal:
					// it serves no one else.
					t.Errorf("another principal on the session: status %d, want 404: %s", got.status, got.body)
				case !wantLegacy && (got.status != http.StatusOK || !strings.Contains(got.body, `"text":"hello `+tt.ran+`"`)):
					t.Errorf("got %+v, want the tool to greet %s", got, tt.ran)
				}
			})
		}
	}
	if n := p.jwks.fetches.Load(); n != 1 {
		t.Errorf("the JWKS was fetched %d times, want 1 (the unknown kid came within the refresh interval)", n)
	}
}

// tamper changes one claim of a signed token without re-signing it.
func tamper(tok string) string {
	parts := strings.Split(tok, ".")
	var c map[string]any
	body, _ := base64URL.DecodeString(parts[1])
	_ = json.Unmarshal(body, &c)
	c["sub"] = "root"
	b, _ := json.Marshal(c)
	parts[1] = base64URL.EncodeToString(b)
	return strings.Join(parts, ".")
}

// When a request carries an API key and a bearer token, the first
// authenticator in Options.Authenticators that finds its credential
// decides, and the others' credentials are not looked at: with JWT
// first, a JWT wins over an X-API-Key, and a refused JWT is refused
// whatever key comes with it.
func TestAttackAPIKeyAndBearerTogether(t *testing.T) {
	p := newProtected(t, nil)
	alice := rsaToken(t, claims("alice", "orders:read"))
	tests := []struct {
		name string
		cred []string
		want string // the greeting, or a status
	}{
		{"a JWT and an API key: the JWT decides", append(bearer(alice), "X-API-Key", adminKey), "hello alice"},
		{"a refused JWT and a good API key", append(bearer(tamper(alice)), "X-API-Key", adminKey), "401"},
		{"a good API key and an unknown bearer key: the header is read first", append(bearer("k-unknown-0123456789"), "X-API-Key", adminKey), "hello key:admin"},
		{"two X-API-Key headers", []string{"X-API-Key", adminKey, "X-API-Key", adminKey}, "401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := p.ran.Load()
			got := modernCall(t, p.url, "echo", "", tt.cred...)
			ok := strings.Contains(got.body, `"text":"`+tt.want+`"`)
			if strings.HasPrefix(tt.want, "4") {
				ok = got.status == http.StatusUnauthorized && p.ran.Load() == before
			}
			if !ok {
				t.Errorf("got %+v, want %s", got, tt.want)
			}
		})
	}
}
