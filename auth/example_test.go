package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// A server protected by API keys: a request without a key gets 401, one
// with a key reaches the tools as the key's principal.
func ExampleMiddleware() {
	keys, err := auth.NewStaticKeys(map[string]*ferry.Principal{
		"k-7f3a9c": {Subject: "reporting-job", Scopes: []string{"orders:read"}},
	})
	if err != nil {
		panic(err)
	}
	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{auth.APIKeys(keys.Lookup, nil)}})

	srv := ferry.NewServer("orders", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "whoami", Description: "Names the caller.", ReadOnly: true},
		func(ctx context.Context, _ struct{}) (string, error) {
			p, _ := ferry.PrincipalFromContext(ctx)
			return p.Subject, nil
		})
	ts := httptest.NewServer(mw(ferry.NewHTTPHandler(srv, nil)))
	defer ts.Close()

	call := func(key string) {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "whoami")
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var msg struct {
			Result struct{ Content []struct{ Text string } }
			Error  struct{ Message string }
		}
		_ = json.NewDecoder(resp.Body).Decode(&msg)
		fmt.Printf("%d %q %s%s\n", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), msg.Error.Message, msg.Result.Content)
	}
	call("")
	call("k-wrong")
	call("k-7f3a9c")
	// Output:
	// 401 "Bearer" unauthorized: this server needs a credential[]
	// 401 "Bearer error=\"invalid_token\", error_description=\"the API key is invalid\"" unauthorized: the API key is invalid[]
	// 200 "" [{reporting-job}]
}

// The metadata of an MCP endpoint, and where clients find it.
func ExampleNewResource() {
	res, err := auth.NewResource("https://mcp.example.com/mcp", []string{"https://login.example.com"},
		&auth.ResourceOptions{Scopes: []string{"orders:read", "orders:write"}, Name: "Orders"})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	res.Mount(mux)

	fmt.Println(res.MetadataURL())
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/.well-known/oauth-protected-resource/mcp", nil))
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// https://mcp.example.com/.well-known/oauth-protected-resource/mcp
	// 200 {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://login.example.com"],"scopes_supported":["orders:read","orders:write"],"bearer_methods_supported":["header"],"resource_name":"Orders"}
}

// The challenges of a 401 and of a 403 step-up.
func ExampleChallenge() {
	meta := "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	fmt.Println(auth.Challenge{Scopes: []string{"orders:read"}, ResourceMetadata: meta})
	fmt.Println(auth.Challenge{Error: auth.ErrorInsufficientScope, Scopes: []string{"orders:write"}, ResourceMetadata: meta})
	// Output:
	// Bearer scope="orders:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// Bearer error="insufficient_scope", scope="orders:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
}

// A JWT access token verified against a JWKS: the principal carries its
// subject, scopes and expiry.
func ExampleNewJWT() {
	// The authorization server's key and JWKS (here, served by the example).
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &priv.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) }))
	defer idp.Close()

	keys, err := auth.NewRemoteKeySet(idp.URL, nil)
	if err != nil {
		panic(err)
	}
	defer keys.Close()
	tokens, err := auth.NewJWT(&auth.JWTOptions{Keys: keys, Issuer: "https://login.example.com", Audiences: []string{"https://mcp.example.com/mcp"}})
	if err != nil {
		panic(err)
	}

	// A token the authorization server issued.
	signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: priv, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	tok, _ := jwt.Signed(signer).Claims(map[string]any{
		"iss": "https://login.example.com", "aud": "https://mcp.example.com/mcp", "sub": "alice",
		"scope": "orders:read orders:write", "exp": time.Now().Add(time.Hour).Unix(),
	}).Serialize()

	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	p, err := tokens.Authenticate(r)
	fmt.Println(p.Subject, p.Scopes, time.Until(p.Expires) > 59*time.Minute, err)
	// Output:
	// alice [orders:read orders:write] true <nil>
}

// A custom authenticator reads the bearer token the same way.
func ExampleBearerToken() {
	h := http.Header{"Authorization": {"Bearer mF_9.B5f-4.1JqM"}}
	tok, err := auth.BearerToken(h)
	fmt.Println(tok, err)
	_, err = auth.BearerToken(http.Header{})
	fmt.Println(err)
	// Output:
	// mF_9.B5f-4.1JqM <nil>
	// auth: no credential
}

// API keys that live in a store of the service's own.
func ExampleAPIKeys() {
	lookup := func(_ context.Context, key string) (*ferry.Principal, error) {
		// Look the key's digest up in the service's database here.
		if key == "k-123" {
			return &ferry.Principal{Subject: "ci-bot", Roles: []string{"deployer"}}, nil
		}
		return nil, nil
	}
	keys := auth.APIKeys(lookup, &auth.APIKeyOptions{Header: "X-Ferry-Key"})
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("X-Ferry-Key", "k-123")
	p, err := keys.Authenticate(r)
	fmt.Println(p.Subject, p.Issuer, p.Roles, err)
	// Output:
	// ci-bot api-key [deployer] <nil>
}

// A key set fetched from the authorization server; Refresh at start-up
// fails fast on a wrong URL instead of at the first request.
func ExampleNewRemoteKeySet() {
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no such page", http.StatusNotFound)
	}))
	defer idp.Close()
	keys, err := auth.NewRemoteKeySet(idp.URL+"/jwks.json", &auth.RemoteKeySetOptions{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	defer keys.Close()
	fmt.Println(keys.Refresh(context.Background()))
	_, err = auth.NewRemoteKeySet("http://login.example.com/jwks.json", nil)
	fmt.Println(err)
	// Output:
	// auth: fetching the JWKS: status 404
	// auth: the JWKS URL "http://login.example.com/jwks.json" is neither https nor http on loopback
}

// Keys held by the server itself, from a JWKS document it was given.
func ExampleParseKeySet() {
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	doc, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &priv.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	keys, err := auth.ParseKeySet(doc)
	if err != nil {
		panic(err)
	}
	k, err := keys.Key(context.Background(), "k1", "ES256")
	fmt.Println(k.ID, k.Algorithm, err)
	_, err = keys.Key(context.Background(), "k1", "RS256")
	fmt.Println(err)
	// Output:
	// k1 ES256 <nil>
	// auth: unknown signing key: key "k1" does not verify RS256
}

// A key held as a Go value.
func ExampleNewStaticKeySet() {
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, err := auth.NewStaticKeySet(auth.Key{ID: "k1", Public: &priv.PublicKey})
	fmt.Println(err)
	_, err = auth.NewStaticKeySet(auth.Key{ID: "shared", Public: []byte("a shared secret of 32 bytes.....")})
	fmt.Println(err)
	// Output:
	// <nil>
	// auth: key "shared": a []uint8 is not a public key this package verifies with
}

// A fixed set of API keys: only their digests are kept.
func ExampleNewStaticKeys() {
	keys, err := auth.NewStaticKeys(map[string]*ferry.Principal{"k-7f3a9c": {Subject: "reporting-job"}})
	if err != nil {
		panic(err)
	}
	p, _ := keys.Lookup(context.Background(), "k-7f3a9c")
	unknown, _ := keys.Lookup(context.Background(), "k-7f3a9d")
	fmt.Println(p.Subject, unknown)
	// Output:
	// reporting-job <nil>
}
