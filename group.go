package ferry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// This file holds groups: named sets of tools, prompts, resources and
// templates, which a client can be served one or a few at a time (see
// [HTTPOptions.Groups]) so that a large catalog does not fill a model's
// context.

// GroupInfo is what the server knows of a group: its name, its
// description and how many entries of each kind belong to it.
type GroupInfo struct {
	// Name is the group's name (see [ValidGroupName]).
	Name string
	// Description says what the group's entries are for, as given to
	// [Server.DescribeGroup]; empty if none was.
	Description string
	// Tools, Prompts, Resources and Templates count the entries of each
	// kind in the group, hidden ones included.
	Tools, Prompts, Resources, Templates int
}

// Entries returns the number of entries in the group, of every kind.
func (g GroupInfo) Entries() int { return g.Tools + g.Prompts + g.Resources + g.Templates }

// maxGroupName is the longest group name: it is a path segment and a
// word a model reads, not a sentence.
const maxGroupName = 64

// ValidGroupName returns nil if name may name a group: 1 to 64 characters
// of A-Z a-z 0-9 _ - . (so that it is one URL path segment as it is), or
// an error saying what is wrong with it. [Server.Check] reports entries
// whose groups break the rule.
func ValidGroupName(name string) error {
	if name == "" || len(name) > maxGroupName {
		return fmt.Errorf("ferry: group %q: a group name has 1 to %d characters", name, maxGroupName)
	}
	for i := range len(name) {
		if !groupNameByte(name[i]) {
			return fmt.Errorf("ferry: group %q: a group name has only letters, digits and the characters _ - . (dot)", name)
		}
	}
	return nil
}

func groupNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

// DescribeGroup sets the description of the group name, which
// [Server.Groups] lists and a client choosing groups reads. A group
// exists while an entry belongs to it; a description may be given before
// any does. An invalid name is reported by [Server.Check].
func (s *Server) DescribeGroup(name, description string) {
	if err := ValidGroupName(name); err != nil {
		s.problem(err)
		return
	}
	s.mu.Lock()
	if s.groupDocs == nil {
		s.groupDocs = map[string]string{}
	}
	s.groupDocs[name] = description
	s.mu.Unlock()
}

// Groups returns the groups that have entries now, in name order, with
// their descriptions and counts. Hidden entries are counted: the list is
// the server's, not a caller's.
func (s *Server) Groups() []GroupInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	byName := map[string]*GroupInfo{}
	count := func(groups map[string]int, field func(*GroupInfo) *int) {
		for name, n := range groups {
			g := byName[name]
			if g == nil {
				g = &GroupInfo{Name: name, Description: s.groupDocs[name]}
				byName[name] = g
			}
			*field(g) += n
		}
	}
	count(s.tools.groups, func(g *GroupInfo) *int { return &g.Tools })
	count(s.prompts.groups, func(g *GroupInfo) *int { return &g.Prompts })
	count(s.resources.groups, func(g *GroupInfo) *int { return &g.Resources })
	count(s.templates.groups, func(g *GroupInfo) *int { return &g.Templates })
	out := make([]GroupInfo, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, *byName[name])
	}
	return out
}

// hasGroupLocked reports whether an entry belongs to the group name. The
// caller holds s.mu.
func (s *Server) hasGroupLocked(name string) bool {
	return s.tools.groups[name] > 0 || s.prompts.groups[name] > 0 ||
		s.resources.groups[name] > 0 || s.templates.groups[name] > 0
}

// groupProblem returns what is wrong with an entry's groups, or nil.
func groupProblem(kind, name string, groups []string) error {
	var bad []string
	for _, g := range groups {
		if ValidGroupName(g) != nil {
			bad = append(bad, fmt.Sprintf("%q", g))
		}
	}
	if bad == nil {
		return nil
	}
	return fmt.Errorf("%s %q: group names of 1 to %d characters of A-Z a-z 0-9 _ - . are needed, not %s",
		kind, name, maxGroupName, strings.Join(bad, ", "))
}

// groupSet is the groups an endpoint serves: an entry is served when it
// belongs to one of them. Nil serves every entry, grouped or not.
type groupSet []string

// admits reports whether an endpoint of the groups v serves an entry of
// the given groups: a nil v serves every entry.
func (v *groupSet) admits(groups []string) bool {
	if v == nil {
		return true
	}
	if len(groups) == 0 {
		return slices.Contains(*v, "") // a session's toolsets serve the entries of no group
	}
	for _, g := range groups {
		if slices.Contains(*v, g) {
			return true
		}
	}
	return false
}

// countGroups adds d to the count of each of groups in counts, deleting
// the counts that reach zero, so that a group without entries is gone.
func countGroups(counts map[string]int, groups []string, d int) map[string]int {
	if len(groups) == 0 {
		return counts
	}
	if counts == nil {
		counts = map[string]int{}
	}
	for _, g := range groups {
		if counts[g] += d; counts[g] <= 0 {
			delete(counts, g)
		}
	}
	return counts
}

func (e *promptEntry) groupNames() []string   { return e.prompt.Groups }
func (e *resourceEntry) groupNames() []string { return e.res.Groups }
func (e *templateEntry) groupNames() []string { return e.tmpl.Groups }

// inView reports whether the endpoint the request of ctx came through
// serves an entry of the given groups: every entry, outside a request.
func inView(ctx context.Context, groups []string) bool {
	r := requestFrom(ctx)
	return r == nil || r.peer.groups.admits(groups)
}
