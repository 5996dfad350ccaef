package openapi

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// MaxUnselected is how many operations a document may have for all of
// them to be served without a selection: a model choosing among more
// tools than this chooses worse, so a larger API needs [Options.Select].
const MaxUnselected = 30

// maxTagsListed bounds the tags an error about the selection lists.
const maxTagsListed = 40

// Select returns the operations a selection chooses, in document order.
// Each entry of sel is one of:
//
//   - an operation id ("getPet"), or a tag ("pets"): the operation, or
//     every operation with the tag (an entry that is both means both);
//   - a pattern "METHOD /path", where METHOD may be "*" and the path
//     template is matched as [path.Match] matches it: "GET /pets/*"
//     matches GET /pets/{id}, and "*" stops at a slash;
//   - any of those after "!", which leaves out what it matches.
//
// With only exclusions, they apply to every operation. An entry that
// matches nothing is an error naming it. With no entries at all, every
// operation is selected if there are at most [MaxUnselected]; otherwise
// the error lists the tags and how many operations each has, to choose
// from.
func (d *Document) Select(sel []string) ([]*Operation, error) {
	var include, exclude []string
	for _, s := range sel {
		s = strings.TrimSpace(s)
		switch {
		case s == "" || s == "!":
		case strings.HasPrefix(s, "!"):
			exclude = append(exclude, strings.TrimSpace(s[1:]))
		default:
			include = append(include, s)
		}
	}
	if len(include) == 0 && len(exclude) == 0 && len(d.ops) > MaxUnselected {
		return nil, fmt.Errorf("openapi: %s has %d operations, more than the %d a model should choose from: select the jobs that matter, by operation id, tag or \"METHOD /path\" pattern; its tags are %s",
			d.location, len(d.ops), MaxUnselected, d.tagCounts())
	}
	for _, e := range slices.Concat(include, exclude) {
		if !slices.ContainsFunc(d.ops, func(o *Operation) bool { return matches(o, e) }) {
			return nil, fmt.Errorf("openapi: %q matches no operation id, tag or \"METHOD /path\" of %s; its tags are %s", e, d.location, d.tagCounts())
		}
	}
	var out []*Operation
	for _, o := range d.ops {
		in := len(include) == 0 || slices.ContainsFunc(include, func(e string) bool { return matches(o, e) })
		if in && !slices.ContainsFunc(exclude, func(e string) bool { return matches(o, e) }) {
			out = append(out, o)
		}
	}
	return out, nil
}

// matches reports whether the selection entry e matches o.
func matches(o *Operation, e string) bool {
	if method, p, ok := strings.Cut(e, " "); ok {
		p = strings.TrimSpace(p)
		if method != "*" && !strings.EqualFold(method, o.Method) {
			return false
		}
		ok, err := path.Match(p, o.Path)
		return err == nil && ok
	}
	return e == o.ID || slices.Contains(o.Tags, e)
}

// tagCounts lists the document's tags with their operations' counts,
// most first: "pets (12), store (4), untagged (2)".
func (d *Document) tagCounts() string {
	counts := map[string]int{}
	for _, o := range d.ops {
		if len(o.Tags) == 0 {
			counts[""]++
		}
		for _, t := range o.Tags {
			counts[t]++
		}
	}
	tags := make([]string, 0, len(counts))
	for t := range counts {
		tags = append(tags, t)
	}
	slices.SortFunc(tags, func(a, b string) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	var parts []string
	for i, t := range tags {
		if i == maxTagsListed {
			parts = append(parts, "and "+strconv.Itoa(len(tags)-i)+" more")
			break
		}
		name := t
		if t == "" {
			name = "(untagged)"
		}
		parts = append(parts, name+" ("+strconv.Itoa(counts[t])+")")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
