package ferry

import "slices"

// MissingScopes returns the scopes in need that p does not hold, in the
// order of need, under [ServerOptions.ScopeImplies]: what a step-up
// challenge asks for. It returns nil when p holds them all. A nil p holds
// no scope.
func (s *Server) MissingScopes(p *Principal, need []string) []string {
	var missing []string
	for _, n := range need {
		if !s.grants(p, n) {
			missing = append(missing, n)
		}
	}
	return missing
}

// grants reports whether p holds a scope that grants need.
func (s *Server) grants(p *Principal, need string) bool {
	if p == nil {
		return false
	}
	if slices.Contains(p.Scopes, need) {
		return true
	}
	if s.opts.ScopeImplies == nil {
		return false
	}
	for _, held := range p.Scopes {
		if s.opts.ScopeImplies(held, need) {
			return true
		}
	}
	return false
}
