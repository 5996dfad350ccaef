package ferry

import (
	"encoding/base64"
	"slices"
	"strings"
)

// entry is something a registry lists: a tool, prompt, resource or template.
type entry interface {
	key() string
	// wire is the entry's JSON as list methods send it.
	wire() []byte
}

// registry holds entries in key order, so that lists are deterministic and
// cursors stay valid while entries come and go. The caller guards it.
type registry[T entry] struct {
	byKey  map[string]T
	sorted []T
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
	i, found := slices.BinarySearchFunc(r.sorted, k, func(e T, k string) int { return strings.Compare(e.key(), k) })
	if found {
		r.sorted[i] = v
	} else {
		r.sorted = slices.Insert(r.sorted, i, v)
	}
	r.byKey[k] = v
}

// remove deletes the entry with key k and reports whether there was one.
func (r *registry[T]) remove(k string) bool {
	if _, ok := r.byKey[k]; !ok {
		return false
	}
	delete(r.byKey, k)
	r.sorted = slices.DeleteFunc(r.sorted, func(e T) bool { return e.key() == k })
	return true
}

// page returns up to size entries after the cursor, and the cursor of the
// next page ("" when this is the last). The cursor is the last key sent,
// encoded; a cursor that does not decode is an error.
func (r *registry[T]) page(cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		last, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(last) == 0 {
			return nil, "", NewError(CodeInvalidParams, "invalid cursor %q: pass the nextCursor of a previous page", cursor)
		}
		start, _ = slices.BinarySearchFunc(r.sorted, string(last), func(e T, k string) int {
			if c := strings.Compare(e.key(), k); c != 0 {
				return c
			}
			return -1 // land after the entry itself
		})
	}
	end := min(start+size, len(r.sorted))
	items := r.sorted[start:end]
	next := ""
	if end < len(r.sorted) {
		next = base64.RawURLEncoding.EncodeToString([]byte(items[len(items)-1].key()))
	}
	return items, next, nil
}
