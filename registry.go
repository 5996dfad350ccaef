package ferry

import (
	"slices"
	"strings"
)

// entry is something a registry lists: a tool, prompt, resource or template.
type entry interface {
	key() string
	// wire is the entry's JSON as list methods send it.
	wire() []byte
	// guarded reports whether the entry has requirements (scopes or
	// roles), so that whether a caller sees it depends on the caller.
	guarded() bool
	// groupNames are the groups the entry belongs to.
	groupNames() []string
}

// registry holds entries in key order, so that lists are deterministic and
// cursors stay valid while entries come and go. The caller guards it.
type registry[T entry] struct {
	byKey  map[string]T
	sorted []T
	// guarded counts the entries with requirements (scopes or roles): a
	// list of a registry with any depends on its caller.
	guarded int
	// groups counts the entries of each group.
	groups map[string]int
	// gen counts the changes, for what is computed from the entries.
	gen uint64
}

func (r *registry[T]) len() int { return len(r.sorted) }

func (r *registry[T]) get(key string) (T, bool) {
	v, ok := r.byKey[key]
	return v, ok
}

// add inserts or replaces v.
func (r *registry[T]) add(v T) {
	if r.byKey == nil {
		r.byKey = make(map[string]T)
	}
	k := v.key()
	r.gen++
	i, found := slices.BinarySearchFunc(r.sorted, k, func(e T, k string) int { return strings.Compare(e.key(), k) })
	if v.guarded() {
		r.guarded++
	}
	r.groups = countGroups(r.groups, v.groupNames(), 1)
	if found {
		if r.sorted[i].guarded() {
			r.guarded--
		}
		r.groups = countGroups(r.groups, r.sorted[i].groupNames(), -1)
		r.sorted[i] = v
	} else {
		r.sorted = slices.Insert(r.sorted, i, v)
	}
	r.byKey[k] = v
}

// removeAll deletes the entries of keys and returns those there were.
func (r *registry[T]) removeAll(keys []string) []T {
	var removed []T
	for _, k := range keys {
		if e, ok := r.get(k); ok && r.remove(k) {
			removed = append(removed, e)
		}
	}
	return removed
}

// remove deletes the entry with key k and reports whether there was one.
func (r *registry[T]) remove(k string) bool {
	old, ok := r.byKey[k]
	if !ok {
		return false
	}
	if old.guarded() {
		r.guarded--
	}
	r.groups = countGroups(r.groups, old.groupNames(), -1)
	r.gen++
	delete(r.byKey, k)
	r.sorted = slices.DeleteFunc(r.sorted, func(e T) bool { return e.key() == k })
	return true
}

// from returns the entries after the key after, all of them when it is "".
func (r *registry[T]) from(after string) []T {
	if after == "" {
		return r.sorted
	}
	start, _ := slices.BinarySearchFunc(r.sorted, after, func(e T, k string) int {
		if c := strings.Compare(e.key(), k); c != 0 {
			return c
		}
		return -1 // land after the entry itself
	})
	return r.sorted[start:]
}

// page returns up to size entries after the key after, and whether more
// follow. The key is that of the last entry of the previous page, which
// need not be registered any more: cursors stay valid while entries come
// and go.
func (r *registry[T]) page(after string, size int) ([]T, bool) {
	rest := r.from(after)
	if len(rest) > size {
		return rest[:size], true
	}
	return rest, false
}
