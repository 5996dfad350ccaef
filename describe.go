package ferry

import "strings"

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
