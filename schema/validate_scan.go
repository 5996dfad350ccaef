package schema

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsonnum"
)

// This file holds the small scanner the validator walks raw JSON with. Every
// function here assumes its input is valid JSON (the validator checks that
// first with json.Valid) and stays within bounds regardless.

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(d []byte, i int) int {
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

// stringEnd returns the index just past the string that opens at d[i], and
// whether the string holds any escape.
func stringEnd(d []byte, i int) (end int, escaped bool) {
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

// valueEnd returns the index just past the value that starts at d[i].
func valueEnd(d []byte, i int) int {
	if i >= len(d) {
		return len(d)
	}
	switch d[i] {
	case '"':
		end, _ := stringEnd(d, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i, _ = stringEnd(d, i)
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

// nextMember moves past the separator after a member or element at d[i]:
// it returns the index of the next member and true, or the index past the
// closing bracket and false.
func nextMember(d []byte, i int) (int, bool) {
	i = skipSpace(d, i)
	if i < len(d) && d[i] == ',' {
		return skipSpace(d, i+1), true
	}
	return i + 1, false
}

// unescape appends the content of a JSON string body (without its quotes)
// to dst, decoding escapes.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			dst = append(dst, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := unicodeEscape(raw[i-1:])
			dst = utf8.AppendRune(dst, r)
			i += n - 2
		default: // '"', '\\', '/'
			dst = append(dst, raw[i])
		}
	}
	return dst
}

// unicodeEscape decodes the \uXXXX escape (and its low surrogate, if any)
// at the start of b, and returns the rune and the bytes consumed.
func unicodeEscape(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return utf8.RuneError, 2
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if r2, ok := hex4(b[6:]); ok && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
			return dec, 12
		}
	}
	return utf8.RuneError, 6
}

// hex4 reads the four hex digits of a \uXXXX escape at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

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
	return bytes.Equal(unescape(nil, a[1:len(a)-1]), unescape(nil, b[1:len(b)-1]))
}

// equalArrays compares two JSON arrays element by element.
func equalArrays(a, b []byte) bool {
	i, j := skipSpace(a, 1), skipSpace(b, 1)
	for {
		endA, endB := i >= len(a) || a[i] == ']', j >= len(b) || b[j] == ']'
		if endA || endB {
			return endA && endB
		}
		ei, ej := valueEnd(a, i), valueEnd(b, j)
		if !equalJSON(a[i:ei], b[j:ej]) {
			return false
		}
		var more bool
		i, more = nextMember(a, ei)
		if !more {
			i--
		}
		j, more = nextMember(b, ej)
		if !more {
			j--
		}
	}
}

// equalObjects compares two JSON objects member by member, in any order.
func equalObjects(a, b []byte) bool {
	count := 0
	ok := eachMember(a, func(key, value []byte) bool {
		count++
		found := false
		eachMember(b, func(k, v []byte) bool {
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
	eachMember(b, func(_, _ []byte) bool { count--; return true })
	return count == 0
}

// eachMember calls f with each member's quoted key and raw value until f
// returns false, and reports whether it ran to the end.
func eachMember(d []byte, f func(key, value []byte) bool) bool {
	i := skipSpace(d, 1)
	for i < len(d) && d[i] == '"' {
		keyEnd, _ := stringEnd(d, i)
		start := skipSpace(d, skipSpace(d, keyEnd)+1)
		end := valueEnd(d, start)
		if !f(d[i:keyEnd], d[start:end]) {
			return false
		}
		var more bool
		if i, more = nextMember(d, end); !more {
			break
		}
	}
	return true
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
		return appendQuoted(dst, unescape(nil, v[1:len(v)-1]))
	case kindArray:
		dst = append(dst, '[')
		i := skipSpace(v, 1)
		for n := 0; i < len(v) && v[i] != ']'; n++ {
			e := valueEnd(v, i)
			if n > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, v[i:e])
			var more bool
			if i, more = nextMember(v, e); !more {
				break
			}
		}
		return append(dst, ']')
	case kindObject:
		type member struct{ key, value []byte }
		var members []member
		eachMember(v, func(key, value []byte) bool {
			members = append(members, member{unescape(nil, key[1:len(key)-1]), value})
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
