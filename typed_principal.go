package ferry

import (
	"fmt"
	"reflect"
)

// strayPrincipal returns an error when In holds a [Principal] anywhere
// but in an exported *Principal field of its own: in a struct it embeds
// or holds, by value, or behind two pointers, in a slice or a map. The
// decoder would fill such a field from the arguments, so a client could
// name itself anyone; the server sets only In's own *Principal fields
// (see [AddTool]).
func strayPrincipal(in reflect.Type) error {
	seen := map[reflect.Type]bool{}
	path := ""
	if in.Kind() != reflect.Struct {
		path = principalPath(in, in.String(), seen)
	} else {
		seen[in] = true
		for i := range in.NumField() {
			f := in.Field(i)
			if f.Type == principalType && f.IsExported() || !f.IsExported() && !f.Anonymous {
				continue // the caller, or a field the decoder does not fill
			}
			if path = principalPath(f.Type, in.Name()+"."+f.Name, seen); path != "" {
				break
			}
		}
	}
	if path == "" {
		return nil
	}
	return fmt.Errorf("%s holds a ferry.Principal the arguments would fill: only a *ferry.Principal field of the In struct itself is the caller", path)
}

// principalPath returns path, extended to the field, when a value of type
// t holds a [Principal] the decoder would fill, and "" otherwise. seen
// holds the struct types already walked, so that recursive types end.
func principalPath(t reflect.Type, path string, seen map[reflect.Type]bool) string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t == principalType.Elem() {
		return path
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return ""
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		if p := principalPath(f.Type, path+"."+f.Name, seen); p != "" {
			return p
		}
	}
	return ""
}
