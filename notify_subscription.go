package ferry

import (
	"context"
	"slices"
)

// errSubscriptionBytes refuses a subscription over [MaxSubscriptionBytes].
func errSubscriptionBytes() error {
	return NewError(CodeInvalidParams, "too many subscriptions: the URIs a session subscribes to may hold %d bytes together; unsubscribe from some first", MaxSubscriptionBytes)
}

// checkSubscriptionURI refuses a URI no subscription may name.
func checkSubscriptionURI(method, uri string) error {
	if uri == "" {
		return NewError(CodeInvalidParams, "%s needs a uri", method)
	}
	if len(uri) > MaxSubscriptionURIBytes {
		return NewError(CodeInvalidParams, "%s: the uri is %d bytes long; at most %d are allowed", method, len(uri), MaxSubscriptionURIBytes)
	}
	return nil
}

// errTooManySubscriptions refuses a subscription over [MaxSubscriptions].
func errTooManySubscriptions() error {
	return NewError(CodeInvalidParams, "too many subscriptions: a session may subscribe to at most %d resources; unsubscribe from some first", MaxSubscriptions)
}

// subscribeList adds uri to subs (on) or removes it, keeping at most
// [MaxSubscriptions].
func subscribeList(subs []string, uri string, on bool) ([]string, error) {
	i := slices.Index(subs, uri)
	switch {
	case !on && i >= 0:
		return slices.Delete(subs, i, i+1), nil
	case !on || i >= 0:
		return subs, nil
	case len(subs) >= MaxSubscriptions:
		return subs, errTooManySubscriptions()
	}
	total := len(uri)
	for _, s := range subs {
		total += len(s)
	}
	if total > MaxSubscriptionBytes {
		return subs, errSubscriptionBytes()
	}
	return append(subs, uri), nil
}

// subscribeSet is [subscribeList] for a set.
func subscribeSet(subs map[string]bool, uri string, on bool) error {
	switch {
	case !on:
		delete(subs, uri)
	case subs[uri]:
	case len(subs) >= MaxSubscriptions:
		return errTooManySubscriptions()
	default:
		total := len(uri)
		for s := range subs {
			total += len(s)
		}
		if total > MaxSubscriptionBytes {
			return errSubscriptionBytes()
		}
		subs[uri] = true
	}
	return nil
}

// subscribe answers resources/subscribe and resources/unsubscribe in a
// legacy session: the session hears of the resource's updates, or no more.
func (s *Server) subscribe(ctx context.Context, r *request, b []byte) ([]byte, error) {
	uri := r.target.name
	if err := checkSubscriptionURI(r.method, uri); err != nil {
		return b, err
	}
	return b, r.peer.state.subscribe(ctx, uri, r.method == "resources/subscribe")
}
