package auth

import (
	"fmt"

	"github.com/ferry-mcp/ferry/internal/bearer"
)

// The error codes of a Bearer challenge (RFC 6750 §3.1).
const (
	// ErrorInvalidRequest: the request is malformed (a token in the query
	// string); HTTP 400.
	ErrorInvalidRequest = "invalid_request"
	// ErrorInvalidToken: a token was sent and refused; HTTP 401.
	ErrorInvalidToken = "invalid_token"
	// ErrorInsufficientScope: the token lacks scopes the request needs;
	// HTTP 403.
	ErrorInsufficientScope = "insufficient_scope"
)

// offlineAccess is never asked for in a challenge nor advertised in
// metadata (MCP 2026-07-28, "Refresh Tokens").
const offlineAccess = bearer.OfflineAccess

// Challenge is the value of a WWW-Authenticate header for the Bearer
// scheme (RFC 6750 §3, RFC 9728 §5.1). Its String form is the one the
// 401 of [Middleware] and the 403 step-up of the ferry HTTP handler
// share: the parameters in the order error, scope, resource_metadata,
// error_description, each present only when set:
//
//	Bearer scope="files:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
//	Bearer error="invalid_token", resource_metadata="https://…", error_description="the token has expired"
//	Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://…", error_description="…"
//
// The zero value is the bare challenge "Bearer".
type Challenge struct {
	// Error is one of [ErrorInvalidRequest], [ErrorInvalidToken],
	// [ErrorInsufficientScope], or empty when no credential was sent.
	Error string
	// Scopes are what the client should ask for: at first, the scopes
	// a client needs to start; on insufficient_scope, every scope the
	// operation needs. offline_access is left out.
	Scopes []string
	// ResourceMetadata is the URL of the protected resource metadata
	// (see [Resource.MetadataURL]).
	ResourceMetadata string
	// Description is a sentence for the developer (error_description),
	// which says what is wrong without details that help a forger.
	Description string
}

// String formats the challenge as a WWW-Authenticate value. Values are
// quoted strings: a quote or backslash is escaped with a backslash, and a
// control character or a character outside printable ASCII becomes "?",
// so a value can neither end the parameter nor split the header.
func (c Challenge) String() string {
	return bearer.Challenge(c.Error, c.Scopes, c.ResourceMetadata, c.Description)
}

// checkScope reports whether s can be sent as one scope-token (RFC 6749
// §3.3: printable ASCII but space, quote and backslash).
func checkScope(s string) error {
	if s == "" {
		return fmt.Errorf("auth: empty scope")
	}
	for i := range len(s) {
		if c := s[i]; c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return fmt.Errorf("auth: scope %q has a character a scope may not", s)
		}
	}
	return nil
}
