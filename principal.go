package ferry

import "context"

type principalKey struct{}

// WithPrincipal returns a context that carries the authenticated caller's
// name. Authentication middleware in front of the HTTP handler sets it on
// the request's context; tools and the call log read it.
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// PrincipalFromContext returns the caller set by [WithPrincipal].
func PrincipalFromContext(ctx context.Context) (string, bool) {
	p, ok := ctx.Value(principalKey{}).(string)
	return p, ok && p != ""
}
