// Package auth puts authentication in front of a ferry HTTP handler:
// API keys, JWT bearer access tokens verified against a JWKS, and the
// OAuth protected resource metadata (RFC 9728) and challenges MCP clients
// follow to get a token.
//
// A server whose tokens an authorization server issues:
//
//	res, err := auth.NewResource("https://mcp.example.com/mcp",
//		[]string{"https://login.example.com"}, &auth.ResourceOptions{Scopes: []string{"orders:read", "orders:write"}})
//	if err != nil {
//		return err
//	}
//	keys, err := auth.NewRemoteKeySet("https://login.example.com/.well-known/jwks.json", nil)
//	if err != nil {
//		return err // a URL neither https nor http on loopback, say
//	}
//	defer keys.Close()
//	tokens, err := auth.NewJWT(&auth.JWTOptions{Keys: keys, Issuer: "https://login.example.com", Audiences: []string{res.URI()}})
//	if err != nil {
//		return err
//	}
//	mw := auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{tokens}, Resource: res, Scopes: []string{"orders:read"}})
//
//	mux := http.NewServeMux()
//	res.Mount(mux) // /.well-known/oauth-protected-resource[/mcp], public
//	mux.Handle("/mcp", mw(ferry.NewHTTPHandler(srv, nil)))
//
// Every request to /mcp then needs "Authorization: Bearer <token>"; the
// tools see the caller with [ferry.PrincipalFromContext], and the server
// hides what the caller's scopes and roles do not allow.
//
// # Answers
//
// A request without a credential gets 401 with
// `WWW-Authenticate: Bearer scope="orders:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`;
// one with a refused credential gets 401 with error="invalid_token" and a
// short error_description ("the token has expired"); a token in the
// query string gets 400 with error="invalid_request" and is not used. The
// 403 of a tool call that needs more scopes comes from the ferry handler,
// in the same format ([Challenge]). Details of a refusal go to the log,
// never to the client, and no credential is ever logged.
//
// # API keys
//
// [APIKeys] takes a key from X-API-Key (or another header) or from
// "Authorization: Bearer", and asks a [KeyLookup] who it belongs to, so
// keys can live in a database; [StaticKeys] is a fixed set compared in
// constant time. List [JWT] first to accept both: it leaves bearer
// tokens that are not JWTs to the next authenticator. A key's caller has
// the Issuer [APIKeyIssuer] and a token's the token's issuer, so a key
// named "alice" and a token whose sub is "alice" are two callers, each
// with its own sessions and limits.
//
// # Keys and algorithms
//
// Tokens are verified with go-jose v4, with the algorithms allowed listed
// explicitly (RS256 and ES256 by default); HMAC and none are not
// algorithms this package accepts, so neither a forged unsigned token nor
// one "signed" with a public key as an HMAC secret passes. A
// [RemoteKeySet] caches the JWKS and refetches it at most once per
// interval, through a single fetch, keeping the last good set when a
// fetch fails. A token verified once is remembered (by its SHA-256) until
// it expires, so a client that sends the same token on every request pays
// for one signature check; each use still checks its times and that its
// key is in the set, unchanged (see [JWTOptions.TokenCacheSize]).
package auth
