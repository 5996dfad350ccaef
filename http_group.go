package ferry

import (
	"net/http"
	"slices"
)

// This file holds the HTTP handler's group endpoints: a handler that
// serves some groups only ([HTTPOptions.Groups]), or the group its path
// names ([HTTPOptions.GroupPathValue]). The endpoint's groups go into
// each request's peer, and [Server.resolve] and the list, completion and
// resource methods read them there, as one more reason to hide an entry.

// endpointGroups returns the groups of [HTTPOptions.Groups], nil for all.
// It panics on a name no group can have: a misconfigured endpoint would
// serve nothing.
func endpointGroups(names []string) *groupSet {
	if len(names) == 0 {
		return nil
	}
	for _, n := range names {
		if err := ValidGroupName(n); err != nil {
			panic("ferry: HTTPOptions.Groups: " + err.Error()) //nolint:forbidigo // a programmer error at construction, documented on NewHTTPHandler
		}
	}
	v := groupSet(slices.Compact(slices.Sorted(slices.Values(names))))
	return &v
}

// groupsOf returns the groups the endpoint of hr serves: the group its
// path names, or else [HTTPOptions.Groups] (nil for all).
func (h *HTTPHandler) groupsOf(hr *http.Request) *groupSet {
	if h.opts.GroupPathValue != "" {
		if g := hr.PathValue(h.opts.GroupPathValue); g != "" {
			return &groupSet{g}
		}
	}
	return h.groups
}

// servesGroupOf reports whether the group the path of hr names, if any,
// is one the handler serves and has entries, and otherwise answers 404.
func (h *HTTPHandler) servesGroupOf(w http.ResponseWriter, hr *http.Request) bool {
	g := hr.PathValue(h.opts.GroupPathValue)
	if g == "" {
		return true
	}
	ok := h.groups.admits([]string{g})
	if ok {
		h.srv.mu.RLock()
		ok = h.srv.hasGroupLocked(g)
		h.srv.mu.RUnlock()
	}
	if !ok {
		writeJSONError(w, http.StatusNotFound, CodeInvalidRequest, "no such group: "+quoteGroup(g))
	}
	return ok
}

// quoteGroup quotes a group name from a path for an error message,
// shortened and with only the characters a group name may have, so that
// the message repeats nothing a client should not echo.
func quoteGroup(g string) string {
	return `"` + groupName(g) + `"`
}
