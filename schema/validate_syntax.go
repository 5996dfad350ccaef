package schema

import "bytes"

// maxDepth is how deeply arrays and objects may nest, as in encoding/json.
const maxDepth = 10000

// validJSON reports whether d is one JSON value (RFC 8259), as json.Valid
// does, but several times faster: a recursive descent that skips string
// bodies with bytes.IndexByte. FuzzValidJSON holds it to json.Valid.
func validJSON(d []byte) bool {
	i, ok := syntaxValue(d, skipSpace(d, 0), 0)
	return ok && skipSpace(d, i) == len(d)
}

// syntaxValue checks the value at d[i] and returns the index past it.
func syntaxValue(d []byte, i, depth int) (int, bool) {
	if i >= len(d) {
		return i, false
	}
	switch c := d[i]; {
	case c == '{':
		return syntaxObject(d, i, depth+1)
	case c == '[':
		return syntaxArray(d, i, depth+1)
	case c == '"':
		return syntaxString(d, i)
	case c == 't':
		return syntaxLiteral(d, i, "true")
	case c == 'f':
		return syntaxLiteral(d, i, "false")
	case c == 'n':
		return syntaxLiteral(d, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return syntaxNumber(d, i)
	}
	return i, false
}

func syntaxObject(d []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = syntaxString(d, i); !ok {
			return i, false
		}
		if i = skipSpace(d, i); i >= len(d) || d[i] != ':' {
			return i, false
		}
		if i, ok = syntaxValue(d, skipSpace(d, i+1), depth); !ok {
			return i, false
		}
		if i = skipSpace(d, i); i >= len(d) {
			return i, false
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func syntaxArray(d []byte, i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = syntaxValue(d, i, depth); !ok {
			return i, false
		}
		if i = skipSpace(d, i); i >= len(d) {
			return i, false
		}
		switch d[i] {
		case ',':
			i = skipSpace(d, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// syntaxString checks the string at d[i]: no control characters, only the
// escapes JSON defines. Like json.Valid, it does not check UTF-8.
func syntaxString(d []byte, i int) (int, bool) {
	i++
	q := -1 // the next '"' at or after i, once found: searching again from
	// every escape would make a string of escapes quadratic
	for {
		if q < i {
			j := bytes.IndexByte(d[i:], '"')
			if j < 0 {
				return len(d), false
			}
			q = i + j
		}
		body := d[i:q]
		k := bytes.IndexByte(body, '\\')
		if k < 0 {
			if !noControl(body) {
				return i, false
			}
			return q + 1, true
		}
		if !noControl(body[:k]) {
			return i, false
		}
		i += k + 1 // the escape's second byte
		if i >= len(d) {
			return i, false
		}
		switch d[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			if i+5 > len(d) || !isHex(d[i+1]) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) {
				return i, false
			}
			i += 5
		default:
			return i, false
		}
	}
}

// noControl reports whether b holds no byte below 0x20.
func noControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return false
		}
	}
	return true
}

func syntaxLiteral(d []byte, i int, lit string) (int, bool) {
	end := i + len(lit)
	return end, end <= len(d) && string(d[i:end]) == lit
}

// syntaxNumber checks the number at d[i]: -? int frac? exp?.
func syntaxNumber(d []byte, i int) (int, bool) {
	if d[i] == '-' {
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
