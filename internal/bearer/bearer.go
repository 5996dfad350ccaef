// Package bearer writes the WWW-Authenticate challenge of the Bearer
// scheme (RFC 6750 section 3, RFC 9728 section 5.1) in one form, which
// the auth package's 401 and the root's 403 step-up answer both send, so
// that one client parser reads both.
package bearer

import "strings"

// OfflineAccess is the scope a challenge never asks for (MCP 2026-07-28,
// "Refresh Tokens").
const OfflineAccess = "offline_access"

// Challenge returns the challenge's value: "Bearer", then the parameters
// error, scope, resource_metadata and error_description, in that order,
// each left out when empty. scope lists the scopes separated by spaces,
// without empty ones and [OfflineAccess]. Values are quoted strings: a
// quote or backslash is escaped with a backslash, and a control character
// or a byte outside printable ASCII becomes '?', so that no value can end
// its parameter or split the header.
func Challenge(errorCode string, scopes []string, metadata, description string) string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	param := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		writeQuoted(&b, value)
		b.WriteByte('"')
		sep = ", "
	}
	param("error", errorCode)
	param("scope", scopeList(scopes))
	param("resource_metadata", metadata)
	param("error_description", description)
	return b.String()
}

// scopeList joins scopes with spaces, without empty ones and
// [OfflineAccess].
func scopeList(scopes []string) string {
	var b strings.Builder
	for _, s := range scopes {
		if s == "" || s == OfflineAccess {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// writeQuoted writes v as the inside of an RFC 9110 quoted-string.
func writeQuoted(b *strings.Builder, v string) {
	for i := range len(v) {
		switch c := v[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
}
