package jsontext

import "bytes"

// This file holds the helpers that walk JSON already checked (by [Valid]
// or a [Scanner]). On other input they stay within bounds, and their
// results mean nothing.

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// StringEnd returns the index just past the string that opens at d[i],
// and whether the string holds any escape.
func StringEnd(d []byte, i int) (end int, escaped bool) {
	if i+1 <= len(d) {
		if j := bytes.IndexByte(d[i+1:], '"'); j >= 0 && bytes.IndexByte(d[i+1:i+1+j], '\\') < 0 {
			return i + j + 2, false
		}
	}
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i + 1, escaped
		}
	}
	return len(d), escaped
}

// ValueEnd returns the index just past the value that starts at d[i].
func ValueEnd(d []byte, i int) int {
	if i >= len(d) {
		return len(d)
	}
	switch d[i] {
	case '"':
		end, _ := StringEnd(d, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i, _ = StringEnd(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(d)
	}
	for i < len(d) {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// NextMember moves past the separator after a member or element at d[i]:
// it returns the index of the next member and true, or the index past the
// closing bracket and false.
func NextMember(d []byte, i int) (int, bool) {
	i = SkipSpace(d, i)
	if i < len(d) && d[i] == ',' {
		return SkipSpace(d, i+1), true
	}
	return i + 1, false
}

// EachMember calls f with each member's quoted key and raw value of the
// object d (with no space around it) until f returns false, and reports
// whether it ran to the end.
func EachMember(d []byte, f func(key, value []byte) bool) bool {
	i := SkipSpace(d, 1)
	for i < len(d) && d[i] == '"' {
		keyEnd, _ := StringEnd(d, i)
		start := SkipSpace(d, SkipSpace(d, keyEnd)+1)
		end := ValueEnd(d, start)
		if !f(d[i:keyEnd], d[start:end]) {
			return false
		}
		var more bool
		if i, more = NextMember(d, end); !more {
			break
		}
	}
	return true
}

// Type is the JSON type of a value.
type Type uint8

// The JSON types.
const (
	Invalid Type = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var typeNames = [...]string{"invalid", "null", "bool", "number", "string", "array", "object"}

// String returns the type's name as encoding/json's errors write it:
// "number", "object"...
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return typeNames[Invalid]
}

// TypeOf returns the type of the value v (valid JSON, no leading space),
// by its first byte.
func TypeOf(v []byte) Type {
	if len(v) == 0 {
		return Invalid
	}
	switch c := v[0]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || '0' <= c && c <= '9':
		return Number
	}
	return Invalid
}
