package ferry

import (
	"context"
	"fmt"
	"strings"
)

// requirement is what a caller needs to see a prompt, a resource or a
// template: every one of its scopes and one of its roles (a tool's access
// has more to it: see [Server.toolAccess]).
type requirement struct{ scopes, roles []string }

// guarded reports whether the entry has requirements, so that whether a
// caller sees it depends on the caller.
func (q requirement) guarded() bool { return len(q.scopes) > 0 || len(q.roles) > 0 }

// openTo reports whether every caller sees the entry.
func (q requirement) openTo(*Server) bool { return !q.guarded() }

// visibleTo reports whether the caller of ctx sees the entry.
func (q requirement) visibleTo(ctx context.Context, s *Server) bool {
	return s.allowsEntry(ctx, q.scopes, q.roles)
}

// requirementProblems returns what is wrong with an entry's Scopes and
// Roles: a scope that is not an OAuth scope-token (RFC 6749 section 3.3:
// printable ASCII but space, '"' and '\') and an empty role. No credential
// grants such a scope, so the entry would be hidden from everyone, and a
// step-up challenge cannot name it: a space would split it into two
// scopes a client asks for in vain, a quote or a line break would be
// mangled by the challenge's escaping.
func requirementProblems(scopes, roles []string) []string {
	var problems []string
	for _, sc := range scopes {
		if !isScopeToken(sc) {
			problems = append(problems, fmt.Sprintf("scope %q is not an OAuth scope (printable ASCII without space, '\"' or '\\')", sc))
		}
	}
	for _, r := range roles {
		if r == "" {
			problems = append(problems, "a role is empty")
		}
	}
	return problems
}

// isScopeToken reports whether s is an RFC 6749 scope-token.
func isScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if c := s[i]; c <= 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// describe returns desc with the sentence [ServerOptions.DescribeRequirements]
// appends: what a caller needs to use the entry. An empty desc stays
// empty, so that a missing description is still reported.
func (s *Server) describe(desc string, scopes, roles []string) string {
	if !s.opts.DescribeRequirements || desc == "" || len(scopes) == 0 && len(roles) == 0 {
		return desc
	}
	return strings.TrimRight(desc, " \t\n") + " " + requirementsSentence(scopes, roles)
}

// requirementsSentence says what scopes (every one) and roles (any one)
// an entry needs: "Requires the scope orders:write. Only for the roles
// admin, clerk."
func requirementsSentence(scopes, roles []string) string {
	var b strings.Builder
	switch len(scopes) {
	case 0:
	case 1:
		b.WriteString("Requires the scope " + scopes[0] + ".")
	default:
		b.WriteString("Requires the scopes " + strings.Join(scopes, ", ") + ".")
	}
	if len(roles) > 0 && b.Len() > 0 {
		b.WriteByte(' ')
	}
	switch len(roles) {
	case 0:
	case 1:
		b.WriteString("Only for the role " + roles[0] + ".")
	default:
		b.WriteString("Only for the roles " + strings.Join(roles, ", ") + ".")
	}
	return b.String()
}
