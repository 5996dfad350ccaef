// Package jsontext reads JSON text without reflection: a syntax check
// that accepts exactly what json.Valid accepts, several times faster and
// with a nesting bound of the caller's choice, and helpers that walk
// JSON already checked (member by member, value by value) and decode its
// strings as encoding/json does.
//
// The validator ([Valid], [Scanner]) is the only part that trusts
// nothing. The walking helpers ([SkipSpace], [ValueEnd], [EachMember],
// ...) assume valid JSON and only promise to stay within bounds on
// anything else.
package jsontext

import (
	"encoding/binary"
	"math/bits"
)

// MaxDepth is how deeply arrays and objects nest at most in a value that
// json.Valid accepts.
const MaxDepth = 10000

// Valid reports whether d is one JSON value (RFC 8259), as json.Valid
// does: a recursive descent that skips string bodies with
// bytes.IndexByte. FuzzValid holds it to json.Valid.
func Valid(d []byte) bool {
	sc := Scanner{MaxDepth: MaxDepth}
	return sc.Valid(d)
}

// Scanner checks the syntax of JSON values, refusing arrays and objects
// nested more than MaxDepth levels deep. With MaxDepth at most
// [MaxDepth], it accepts a subset of what json.Valid accepts: exactly
// that set when MaxDepth is [MaxDepth]. A Scanner is not safe for
// concurrent use; it is small, so make one per goroutine.
type Scanner struct {
	// MaxDepth is how many levels of arrays and objects a value may
	// nest: 1 allows [1] but not [[1]].
	MaxDepth int
	// tooDeep records that the last failure was nesting past MaxDepth.
	tooDeep bool
}

// Valid reports whether d is one JSON value with nothing but space
// around it.
func (s *Scanner) Valid(d []byte) bool {
	i, ok := s.Value(d, SkipSpace(d, 0), 0)
	return ok && SkipSpace(d, i) == len(d)
}

// TooDeep reports whether the last check failed because arrays and
// objects nested more than MaxDepth levels deep, rather than for the
// syntax. The failure was then at the first bracket too deep.
func (s *Scanner) TooDeep() bool { return s.tooDeep }

// Value checks the value that starts at d[i], inside depth levels of
// arrays and objects, and returns the index just past it. On failure the
// index is where the problem is.
func (s *Scanner) Value(d []byte, i, depth int) (int, bool) {
	if i >= len(d) {
		return i, false
	}
	switch c := d[i]; {
	case c == '{':
		return s.object(d, i, depth+1)
	case c == '[':
		return s.array(d, i, depth+1)
	case c == '"':
		return CheckString(d, i)
	case c == 't':
		return literal(d, i, "true")
	case c == 'f':
		return literal(d, i, "false")
	case c == 'n':
		return literal(d, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return CheckNumber(d, i)
	}
	return i, false
}

// Open reports whether a container opened at depth fits within
// MaxDepth, recording the failure when it does not.
func (s *Scanner) Open(depth int) bool {
	s.tooDeep = depth > s.MaxDepth
	return !s.tooDeep
}

func (s *Scanner) object(d []byte, i, depth int) (int, bool) {
	if !s.Open(depth) {
		return i, false
	}
	i = SkipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = CheckString(d, i); !ok {
			return i, false
		}
		if i = SkipSpace(d, i); i >= len(d) || d[i] != ':' {
			return i, false
		}
		if i, ok = s.Value(d, SkipSpace(d, i+1), depth); !ok {
			return i, false
		}
		if i = SkipSpace(d, i); i >= len(d) {
			return i, false
		}
		switch d[i] {
		case ',':
			i = SkipSpace(d, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (s *Scanner) array(d []byte, i, depth int) (int, bool) {
	if !s.Open(depth) {
		return i, false
	}
	i = SkipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = s.Value(d, i, depth); !ok {
			return i, false
		}
		if i = SkipSpace(d, i); i >= len(d) {
			return i, false
		}
		switch d[i] {
		case ',':
			i = SkipSpace(d, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// CheckString checks the string that starts at d[i] (its opening quote)
// and returns the index just past its closing quote: no control
// characters, only the escapes JSON defines. Like json.Valid, it does not
// check UTF-8.
func CheckString(d []byte, i int) (int, bool) {
	end, _, ok := ScanString(d, i)
	return end, ok
}

// ScanString is [CheckString] that also reports whether the string holds
// an escape. It reads eight bytes at a time while it can.
func ScanString(d []byte, i int) (end int, escaped, ok bool) {
	i++
	for {
		for ; i+8 <= len(d); i += 8 {
			if m := special(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
		}
		for ; i < len(d); i++ { // the last bytes, or the byte found
			if c := d[i]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
		}
		if i >= len(d) {
			return len(d), escaped, false
		}
		switch d[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			escaped = true
			if i, ok = checkEscape(d, i); !ok {
				return i, escaped, false
			}
		default: // a control character
			return i, escaped, false
		}
	}
}

// Masks of the bytes of a word, for special.
const (
	lowBits   = 0x0101010101010101
	highBits  = 0x8080808080808080
	quotes    = '"' * lowBits
	backslash = '\\' * lowBits
	space     = ' ' * lowBits
)

// special flags the bytes of the word w (eight bytes of a string, the
// first the lowest) that end a run of plain string content: a quote, a
// backslash or a control character. Only the lowest flag is exact (a
// borrow may flag a byte above it), which is all [ScanString] reads: the
// lowest byte flagged by "has a zero byte", (v-1)&^v&0x80, is exact, and
// so is the lowest of several such masks.
func special(w uint64) uint64 {
	q, b := w^quotes, w^backslash
	return ((q-lowBits)&^q | (b-lowBits)&^b | (w-space)&^w) & highBits
}

// checkEscape checks the escape whose backslash is d[i] and returns the
// index past it.
func checkEscape(d []byte, i int) (int, bool) {
	i++ // the escape's second byte
	if i >= len(d) {
		return i, false
	}
	switch d[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 1, true
	case 'u':
		if i+5 > len(d) || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
			return i, false
		}
		return i + 5, true
	}
	return i, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal checks the literal lit at d[i]. On failure the index it returns
// is still within d, as every index the Scanner returns is.
func literal(d []byte, i int, lit string) (int, bool) {
	end := i + len(lit)
	if end > len(d) {
		return len(d), false
	}
	return end, string(d[i:end]) == lit
}

// CheckNumber checks the number that starts at d[i], -? int frac? exp?, and
// returns the index just past it.
func CheckNumber(d []byte, i int) (int, bool) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = skipDigits(d, i)
	default:
		return i, false
	}
	if i < len(d) && d[i] == '.' {
		j := skipDigits(d, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := skipDigits(d, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func skipDigits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}
