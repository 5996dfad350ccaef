package ferry

import "slices"

// MaxSubscriptions is the most resources one session may subscribe to:
// with resources/subscribe in a legacy session (stdio or stateful HTTP),
// or in the resourceSubscriptions of one subscriptions/listen. A
// subscription beyond it is refused with an invalid-params error.
const MaxSubscriptions = 512

// MaxSubscriptionURIBytes is the longest resource URI a subscription may
// name; a longer one is refused with an invalid-params error.
const MaxSubscriptionURIBytes = 2048

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
		subs[uri] = true
	}
	return nil
}
