package openapi

import (
	"slices"

	"github.com/ferry-mcp/ferry"
)

// TagGroup returns the group of the tools of operations whose first tag
// is tag: the tag in snake_case, every run of other characters than
// letters and digits one underscore ("Pet Store" and "pet-store" are
// "pet_store", "userAccounts" is "user_accounts"). It returns "" (no
// group) for a tag that gives no valid group name
// ([ferry.ValidGroupName]): empty, or longer than a group name may be.
func TagGroup(tag string) string {
	g := snakeWords(tag)
	if ferry.ValidGroupName(g) != nil {
		return ""
	}
	return g
}

// toolGroups returns the groups of the tool of op, whose options are to:
// those of to, else the group of op's first tag. It returns nil when op
// has no tag, or when its first tag gives no group, so that the route's
// rule applies ([route.RouteGroup]: the path's first segment), and
// reports whether the groups are the tag's.
func toolGroups(op *Operation, to ToolOptions) (groups []string, tag bool) {
	if to.Groups != nil {
		return slices.Clone(to.Groups), false
	}
	if len(op.Tags) > 0 {
		if g := TagGroup(op.Tags[0]); g != "" {
			return []string{g}, true
		}
	}
	return nil, false
}
