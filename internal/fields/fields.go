// Package fields reads Go struct fields as encoding/json does, and parses
// the struct-tag vocabulary Ferry's readers share. Schema inference, prompt
// arguments, resource-template variables (and later entity) all use it, so
// that a field has one name and one meaning everywhere.
package fields

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// Field is a struct field as encoding/json sees it: a member of the JSON
// object, possibly promoted from an embedded struct.
type Field struct {
	// Name is the JSON member name: the json tag's name, else the Go name.
	Name string
	// Tagged says Name came from the json tag.
	Tagged bool
	// OmitEmpty and OmitZero are the json tag's options of those names.
	OmitEmpty, OmitZero bool
	// Quoted is the json tag's string option, on a field whose kind
	// encoding/json quotes (a bool, number or string, or a pointer to one).
	Quoted bool
	// ViaPointer says the field is promoted through an embedded pointer, so
	// it is absent when that pointer is nil.
	ViaPointer bool
	// Index is the index sequence for [reflect.Value.FieldByIndex].
	Index []int
	// StructField is the Go field.
	StructField reflect.StructField
	// Owner is the struct type that declares the field.
	Owner reflect.Type
}

// Omit reports whether the field is tagged omitempty or omitzero.
func (f *Field) Omit() bool { return f.OmitEmpty || f.OmitZero }

// Of returns the fields of struct type t that encoding/json encodes, in
// its order, applying its rules: unexported fields are left out (but the
// exported fields of an embedded unexported struct are promoted), json:"-"
// is left out while json:"-," names a field "-", an embedded struct without
// a json name is promoted, and of several fields with one name the
// shallowest wins, then a tagged one; a tie leaves the name out. It
// returns nil if t is not a struct.
func Of(t reflect.Type) []Field {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var fields []Field
	current := []Field{}
	next := []Field{{Owner: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.Owner] {
				continue
			}
			visited[f.Owner] = true
			for i := range f.Owner.NumField() {
				sf := f.Owner.Field(i)
				ft, ok := exposed(sf)
				if !ok {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validName(name) {
					name = ""
				}
				index := append(slices.Clip(f.Index), i)
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					nf := Field{
						Name: cmp.Or(name, sf.Name), Tagged: name != "",
						OmitEmpty: hasOption(opts, "omitempty"), OmitZero: hasOption(opts, "omitzero"),
						Quoted: hasOption(opts, "string") && quotable(sf.Type),
						Index:  index, StructField: sf, Owner: f.Owner, ViaPointer: f.ViaPointer,
					}
					fields = append(fields, nf)
					if count[f.Owner] > 1 {
						// Reached twice at this depth: the copy makes the
						// name ambiguous, so dominance drops it.
						fields = append(fields, nf)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					viaPtr := f.ViaPointer || sf.Type.Kind() == reflect.Pointer
					next = append(next, Field{Index: index, Owner: ft, ViaPointer: viaPtr})
				}
			}
		}
	}
	return dominant(fields)
}

// exposed returns the type encoding/json looks through for sf (an
// embedded pointer's element) and whether sf is encoded at all.
func exposed(sf reflect.StructField) (reflect.Type, bool) {
	ft := sf.Type
	if sf.Anonymous {
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		return ft, sf.IsExported() || ft.Kind() == reflect.Struct
	}
	return ft, sf.IsExported()
}

// dominant keeps, for each name, the field encoding/json encodes, and
// returns them in index order.
func dominant(fields []Field) []Field {
	slices.SortStableFunc(fields, func(a, b Field) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.Index), len(b.Index)); c != 0 {
			return c
		}
		if a.Tagged != b.Tagged {
			if a.Tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.Index, b.Index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].Name == fields[i].Name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) > 1 && len(group[0].Index) == len(group[1].Index) && group[0].Tagged == group[1].Tagged {
			continue
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b Field) int { return slices.Compare(a.Index, b.Index) })
	return out
}

// hasOption reports whether the comma-separated json tag options opts hold
// want exactly.
func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// quotable reports whether the string option applies to a field of type
// t, as encoding/json decides it.
func quotable(t reflect.Type) bool {
	if t.Name() == "" && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// validName reports whether encoding/json accepts s as a member name from
// a json tag.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// Value returns the field of struct value v (addressable) at index,
// allocating the embedded pointers it is promoted through, as encoding/json
// does when it decodes into such a field.
func Value(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

// Settable reports whether [Value] can reach the field of struct type t at
// index: not through an embedded pointer to an unexported struct, which
// cannot be allocated from outside its package.
func Settable(t reflect.Type, index []int) bool {
	for i, x := range index[:len(index)-1] {
		if i > 0 && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		sf := t.Field(x)
		if sf.Type.Kind() == reflect.Pointer && !sf.IsExported() {
			return false
		}
		t = sf.Type
	}
	return true
}
