package jsontext

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote returns the Go string the JSON string literal lit (checked,
// quotes included) decodes to, exactly as json.Unmarshal into a string
// would: escapes decoded, and each byte of invalid UTF-8 and each lone
// surrogate escape replaced by U+FFFD. A literal without escapes in
// valid UTF-8, the common case, costs one allocation (none when empty).
func Unquote(lit []byte) string {
	if len(lit) < 2 {
		return ""
	}
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body)
	}
	return string(AppendUnquoted(make([]byte, 0, len(body)), body))
}

// UnquoteKnown is [Unquote] that returns the string of known the literal
// spells, if any, without allocating: for names from a small set
// (methods, versions, log levels).
func UnquoteKnown(lit []byte, known []string) string {
	if len(lit) >= 2 {
		for _, k := range known {
			if string(lit[1:len(lit)-1]) == k {
				return k
			}
		}
	}
	return Unquote(lit)
}

// AppendUnquoted appends what the body of a JSON string (without its
// quotes) decodes to, as [Unquote] decodes it.
func AppendUnquoted(dst, body []byte) []byte {
	for len(body) > 0 {
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			return appendValidUTF8(dst, body)
		}
		dst = appendValidUTF8(dst, body[:k])
		var n int
		dst, n = appendEscape(dst, body[k:])
		body = body[k+n:]
	}
	return dst
}

// appendValidUTF8 appends s with each byte of invalid UTF-8 replaced by
// U+FFFD, as encoding/json does.
func appendValidUTF8(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// Unescape appends the content of a JSON string body (without its
// quotes) to dst, decoding escapes. Unlike [AppendUnquoted], it copies
// bytes that are not UTF-8 as they are.
func Unescape(dst, body []byte) []byte {
	for len(body) > 0 {
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			return append(dst, body...)
		}
		dst = append(dst, body[:k]...)
		var n int
		dst, n = appendEscape(dst, body[k:])
		body = body[k+n:]
	}
	return dst
}

// appendEscape appends what the escape at the start of b (its backslash)
// stands for, and returns the bytes it took: a \uXXXX escape with its low
// surrogate, if any, and U+FFFD for a lone surrogate, as encoding/json
// decodes them.
func appendEscape(dst, b []byte) ([]byte, int) {
	if len(b) < 2 {
		return append(dst, b...), len(b)
	}
	switch b[1] {
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		r, n := unicodeEscape(b)
		return utf8.AppendRune(dst, r), n
	}
	return append(dst, b[1]), 2 // '"', '\\', '/'
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

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD and
// U+2028/U+2029 are escaped, as encoding/json does.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
