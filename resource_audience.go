package ferry

import "context"

// updateAudience returns who may hear that the resource uri was updated:
// everyone (nil) when no resource or template has requirements, and
// otherwise the callers for whom uri does not name a hidden entry. uri
// names a hidden entry for a caller when a resource of that URI, or a
// template matching it, exists and none of those the caller may see
// does: resources/read would answer it as not found, so an update must
// not tell the caller it exists. A URI the server does not know is told
// to every subscriber, as before.
func (s *Server) updateAudience(uri string) *audience {
	s.mu.RLock()
	guarded := s.resources.guarded > 0 || s.templates.guarded > 0
	s.mu.RUnlock()
	if !guarded {
		return nil
	}
	return &audience{sees: func(ctx context.Context) bool {
		s.mu.RLock()
		defer s.mu.RUnlock()
		known := false
		if e, ok := s.resources.get(uri); ok {
			if s.allowsEntry(ctx, e.res.Scopes, e.res.Roles) {
				return true
			}
			known = true
		}
		for _, t := range s.templates.sorted {
			if t.compiled.Match(uri) == nil {
				continue
			}
			if s.allowsEntry(ctx, t.tmpl.Scopes, t.tmpl.Roles) {
				return true
			}
			known = true
		}
		return !known
	}}
}
