package schema

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// field is a struct field as encoding/json sees it: a property of the
// object, possibly promoted from an embedded struct.
type field struct {
	name   string // JSON property name
	tagged bool   // name came from the json tag
	omit   bool   // omitempty or omitzero
	viaPtr bool   // promoted through an embedded pointer: absent when it is nil
	index  []int  // index sequence for reflect.Value.FieldByIndex
	sf     reflect.StructField
	owner  reflect.Type // the struct type that declares sf
}

// typeFields returns the fields of struct type t that encoding/json encodes,
// in its order, applying its rules for embedded structs: the shallowest
// field of a name wins, then a tagged one; a tie leaves the name out.
func typeFields(t reflect.Type) []field {
	var fields []field
	current := []field{}
	next := []field{{owner: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.owner] {
				continue
			}
			visited[f.owner] = true
			for i := range f.owner.NumField() {
				sf := f.owner.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !isValidTag(name) {
					name = ""
				}
				index := append(slices.Clip(f.index), i)
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					nf := field{
						name: cmp.Or(name, sf.Name), tagged: name != "",
						omit:  hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
						index: index, sf: sf, owner: f.owner, viaPtr: f.viaPtr,
					}
					fields = append(fields, nf)
					if count[f.owner] > 1 {
						// Reached twice at this depth: the copy makes the
						// name ambiguous, so dominance drops it.
						fields = append(fields, nf)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					viaPtr := f.viaPtr || sf.Type.Kind() == reflect.Pointer
					next = append(next, field{index: index, owner: ft, viaPtr: viaPtr})
				}
			}
		}
	}
	return dominantFields(fields)
}

// dominantFields keeps, for each name, the field encoding/json encodes, and
// returns them in index order.
func dominantFields(fields []field) []field {
	slices.SortStableFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		group := fields[i:j]
		i = j
		if len(group) > 1 && len(group[0].index) == len(group[1].index) && group[0].tagged == group[1].tagged {
			continue
		}
		out = append(out, group[0])
	}
	slices.SortFunc(out, func(a, b field) int { return slices.Compare(a.index, b.index) })
	return out
}

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

// isValidTag reports whether encoding/json accepts s as a property name
// from a json tag.
func isValidTag(s string) bool {
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
