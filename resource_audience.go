package ferry

import "context"

// updateAudience returns who may hear that the resource uri was updated:
// everyone (nil) when uri names no entry with requirements, and otherwise
// the callers who may see one of the entries it names. uri names the
// resource of that URI if there is one, and else each template matching
// it (see [Server.findResourceLocked]): when the caller may see none of them,
// resources/read answers it as not found, so an update must not tell the
// caller it exists. A URI the server does not
// know is told to every subscriber, as before. The entries are found
// once, here, not once for each stream told.
func (s *Server) updateAudience(uri string) *audience {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.resources.guarded == 0 && s.templates.guarded == 0 {
		return nil
	}
	type needs struct{ scopes, roles []string }
	var named []needs
	if e, ok := s.resources.get(uri); ok {
		named = append(named, needs{e.res.Scopes, e.res.Roles})
	} else {
		for _, t := range s.templates.sorted {
			if t.compiled.Match(uri) != nil {
				named = append(named, needs{t.tmpl.Scopes, t.tmpl.Roles})
			}
		}
	}
	for _, n := range named {
		if len(n.scopes) == 0 && len(n.roles) == 0 {
			return nil
		}
	}
	if len(named) == 0 {
		return nil
	}
	return &audience{sees: func(ctx context.Context) bool {
		for _, n := range named {
			if s.allowsEntry(ctx, n.scopes, n.roles) {
				return true
			}
		}
		return false
	}}
}
