package ferry

import (
	"fmt"
	"reflect"
)

// strayPrincipal returns an error when In holds a [Principal] anywhere
// but in an exported *Principal field of its own: in a struct it embeds
// or holds, by value, or behind two pointers. The decoder would fill such
// a field from the arguments, so a client could name itself anyone; the
// server sets only In's own *Principal fields (see [AddTool]).
func strayPrincipal(in reflect.Type) error {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string) string
	walk = func(t reflect.Type, path string) string {
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
			if p := walk(f.Type, path+"."+f.Name); p != "" {
				return p
			}
		}
		return ""
	}
	if in.Kind() != reflect.Struct {
		if p := walk(in, in.String()); p != "" {
			return fmt.Errorf("%s is a ferry.Principal the arguments would fill: only a *ferry.Principal field of the In struct itself is the caller", p)
		}
		return nil
	}
	seen[in] = true
	for i := range in.NumField() {
		f := in.Field(i)
		if f.Type == principalType && f.IsExported() || !f.IsExported() && !f.Anonymous {
			continue
		}
		if p := walk(f.Type, in.Name()+"."+f.Name); p != "" {
			return fmt.Errorf("%s holds a ferry.Principal the arguments would fill: only a *ferry.Principal field of the In struct itself is the caller", p)
		}
	}
	return nil
}
