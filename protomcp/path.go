package protomcp

import (
	"strconv"
	"strings"
)

// path builds the location of a value in a tool's arguments in the form
// the root's schema errors use: items[2].sku, with a name that is not a
// plain identifier written as ["a b"].
type path []string

// field returns p followed by the property name.
func (p path) field(name string) path {
	if !isPlainName(name) {
		return append(p[:len(p):len(p)], "["+strconv.Quote(name)+"]")
	}
	if len(p) == 0 {
		return append(p[:0:0], name)
	}
	return append(p[:len(p):len(p)], "."+name)
}

// index returns p followed by the array index i.
func (p path) index(i int) path {
	return append(p[:len(p):len(p)], "["+strconv.Itoa(i)+"]")
}

// String writes the path; the document itself is "".
func (p path) String() string { return strings.Join(p, "") }

// isPlainName reports whether a property name can be written after a dot,
// by the root's rule.
func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c == '_' || c == '-' || c == '$' || c == '@':
		case '0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case c > 0x7f:
		default:
			return false
		}
	}
	return true
}
