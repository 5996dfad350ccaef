package route

import (
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// RouteGroup returns the group of a tool bound to the route pattern
// ("METHOD /path") when neither the tool ([ferry.Tool.Groups]) nor the
// binding ([Options.Groups]) names one: the first literal segment of the
// path, past an "api" segment and a version ("v1", "v2"...), so that
// "GET /orders/{id}" and "POST /api/v2/orders" are "orders". It returns
// "" (no group) for a path with no such segment ("GET /{id}") and for a
// segment that is not a valid group name ([ferry.ValidGroupName]).
// [Options.Prefix] is not part of the pattern and does not count.
func RouteGroup(pattern string) string {
	_, path, _ := strings.Cut(pattern, " ")
	for seg := range strings.SplitSeq(strings.TrimSpace(path), "/") {
		switch {
		case seg == "", seg == "api", versionSegment(seg):
			continue
		case strings.HasPrefix(seg, "{"):
			return ""
		case ferry.ValidGroupName(seg) != nil:
			return ""
		}
		return seg
	}
	return ""
}

// versionSegment reports whether seg is an API version: v and digits.
func versionSegment(seg string) bool {
	if len(seg) < 2 || seg[0] != 'v' {
		return false
	}
	for _, c := range seg[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// routeGroups are the groups of a tool bound to pattern that names none:
// the binding's, or the route's.
func routeGroups(binding []string, pattern string) []string {
	if binding != nil {
		return slices.Clone(binding)
	}
	if g := RouteGroup(pattern); g != "" {
		return []string{g}
	}
	return []string{} // none: not the group of this package, which would be every route's
}
