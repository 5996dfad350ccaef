package schema

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsontext"

	"github.com/ferry-mcp/ferry/internal/jsonnum"
)

// This file compares JSON values as JSON Schema does (enum, const,
// uniqueItems). Every function here assumes its input is valid JSON (the
// validator checks that first) and stays within bounds regardless.

// appendQuoted appends s as a JSON string.
func appendQuoted(dst, s []byte) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// parseFloatBytes parses a JSON number literal.
func parseFloatBytes(b []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		// A literal beyond float64's range parses as ±Inf with an error;
		// keep the infinity so that bounds still compare sensibly.
		if errors.Is(err, strconv.ErrRange) {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// equalJSON reports whether two JSON values are equal in the sense of JSON
// Schema: numbers by value, strings by their decoded content, objects
// regardless of member order.
func equalJSON(a, b []byte) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	ka, kb := kindOf(a[0]), kindOf(b[0])
	if ka != kb {
		return false
	}
	switch ka {
	case kindNumber:
		return jsonnum.Equal(a, b) // exactly: 2^53+1 is not 2^53
	case kindString:
		return equalStrings(a, b)
	case kindArray:
		return equalArrays(a, b)
	case kindObject:
		return equalObjects(a, b)
	}
	return bytes.Equal(a, b)
}

// equalStrings compares two JSON strings by content.
func equalStrings(a, b []byte) bool {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(jsontext.Unescape(nil, a[1:len(a)-1]), jsontext.Unescape(nil, b[1:len(b)-1]))
}

// equalArrays compares two JSON arrays element by element.
func equalArrays(a, b []byte) bool {
	i, j := jsontext.SkipSpace(a, 1), jsontext.SkipSpace(b, 1)
	for {
		endA, endB := i >= len(a) || a[i] == ']', j >= len(b) || b[j] == ']'
		if endA || endB {
			return endA && endB
		}
		ei, ej := jsontext.ValueEnd(a, i), jsontext.ValueEnd(b, j)
		if !equalJSON(a[i:ei], b[j:ej]) {
			return false
		}
		var more bool
		i, more = jsontext.NextMember(a, ei)
		if !more {
			i--
		}
		j, more = jsontext.NextMember(b, ej)
		if !more {
			j--
		}
	}
}

// equalObjects compares two JSON objects member by member, in any order.
func equalObjects(a, b []byte) bool {
	count := 0
	ok := jsontext.EachMember(a, func(key, value []byte) bool {
		count++
		found := false
		jsontext.EachMember(b, func(k, v []byte) bool {
			if equalStrings(key, k) {
				found = equalJSON(value, v)
				return false
			}
			return true
		})
		return found
	})
	if !ok {
		return false
	}
	jsontext.EachMember(b, func(_, _ []byte) bool { count--; return true })
	return count == 0
}

// appendCanonical appends the value v (valid JSON) in a canonical form, so
// that two values JSON Schema calls equal are written alike: no space,
// numbers by their exact value, strings decoded and re-quoted, object
// members sorted by name.
func appendCanonical(dst, v []byte) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return dst
	}
	switch kindOf(v[0]) {
	case kindNumber:
		// By exact value: 1.0 equals 1, -0 equals 0, and no two integers
		// beyond float64's precision are taken for each other.
		if out, ok := jsonnum.AppendCanonical(append(dst, '#'), v); ok {
			return out
		}
		return append(dst, v...)
	case kindString:
		if bytes.IndexByte(v, '\\') < 0 {
			return append(dst, v...) // already in the form appendQuoted writes
		}
		return appendQuoted(dst, jsontext.Unescape(nil, v[1:len(v)-1]))
	case kindArray:
		dst = append(dst, '[')
		i := jsontext.SkipSpace(v, 1)
		for n := 0; i < len(v) && v[i] != ']'; n++ {
			e := jsontext.ValueEnd(v, i)
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, v[i:e])
			var more bool
			if i, more = jsontext.NextMember(v, e); !more {
				break
			}
		}
		return append(dst, ']')
	case kindObject:
		type member struct{ key, value []byte }
		var members []member
		jsontext.EachMember(v, func(key, value []byte) bool {
			members = append(members, member{jsontext.Unescape(nil, key[1:len(key)-1]), value})
			return true
		})
		slices.SortFunc(members, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		dst = append(dst, '{')
		for n, m := range members {
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendQuoted(dst, m.key), ':')
			dst = appendCanonical(dst, m.value)
		}
		return append(dst, '}')
	}
	return append(dst, v...) // true, false, null
}
