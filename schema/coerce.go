package schema

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// Policy says which mismatched values a [Validator] rewrites instead of
// refusing. Models often write a number or a flag as a string; a policy
// decides whether that is accepted.
type Policy uint8

const (
	// Unambiguous, the default, rewrites a JSON string where the schema
	// wants another type only when the string can mean one thing:
	//
	//   - "true" and "false" become booleans;
	//   - a string holding a JSON number ("12", "-0.5", "1e3") becomes a
	//     number; for an integer only when its value is whole ("12.0" and
	//     "1e3" are accepted and written 12 and 1000, "12.5" is refused);
	//   - an amount with a leading £ or $, or with thousands separators,
	//     becomes a number: "£1,234.00", "$1,234.00", "-$5", "1,234.50",
	//     "1,234,567". Groups after the first must have three digits, the
	//     decimal mark must be a dot, and a lone group such as "1,234"
	//     needs a £ or $ (elsewhere it could mean 1.234); decimal commas
	//     ("€1.234,50", "1,5") and other currencies are refused;
	//   - a string holding a JSON array where an array is wanted becomes
	//     that array: "[\"a\",\"b\"]" becomes ["a","b"] and "[1,2]" [1,2];
	//     likewise a string holding a JSON object where an object is
	//     wanted: "{\"min\":1}" becomes {"min":1}. The value read is then
	//     validated as if it had been sent so: its members are coerced and
	//     its defaults filled in. A string that starts with [ (or {) but is
	//     not valid JSON is refused, saying so;
	//   - any other string where an array of strings is wanted becomes a
	//     list: "a, b" is split at commas into ["a","b"], with the space
	//     around each item trimmed and empty items dropped, so "a" becomes
	//     ["a"];
	//   - null for an optional property whose schema does not allow null
	//     is read as absent: it is not checked, and the property's default,
	//     if it has one, takes its place.
	//
	// Nothing else is coerced: "ten" for a number, "yes" for a boolean or
	// "March 2026" for a date are refused with a sentence naming what was
	// expected. A coerced value is then checked against the rest of its
	// schema. Under Unambiguous an integer written with a fraction or an
	// exponent (12.0, 1e3) is also rewritten as digits, so that it decodes
	// into a Go integer.
	Unambiguous Policy = iota
	// Strict coerces nothing: a value of the wrong type is refused. Numbers
	// such as 12.0 are still integers, as JSON Schema says, but they are
	// left as written.
	Strict
)

// String returns "unambiguous" or "strict".
func (p Policy) String() string {
	switch p {
	case Unambiguous:
		return "unambiguous"
	case Strict:
		return "strict"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// coerce returns what the JSON string raw (with its quotes) becomes where
// n wants another type, under [Unambiguous], or false if it stays refused.
func (n *node) coerce(raw []byte) ([]byte, bool) {
	s := raw[1 : len(raw)-1]
	if bytes.IndexByte(s, '\\') >= 0 {
		s = jsontext.Unescape(nil, s)
	}
	switch n.kind {
	case kindBoolean:
		switch string(s) {
		case "true", "false":
			return s, true
		}
	case kindNumber, kindInteger:
		return coerceNumber(s, n.kind == kindInteger)
	case kindArray:
		if t := bytes.TrimSpace(s); len(t) > 0 && t[0] == '[' {
			// A JSON array sent as a string: read it as JSON, never split
			// it at its commas.
			return jsonIn(t)
		}
		if n.items != nil && n.items.kind == kindString {
			return splitList(s), true
		}
	case kindObject:
		if t := bytes.TrimSpace(s); len(t) > 0 && t[0] == '{' {
			return jsonIn(t)
		}
	}
	return nil, false
}

// jsonIn returns t, the content of a string that starts as a JSON array
// or object does, if it is JSON; if not, it returns t and false, so that
// the refusal can say the string is not valid JSON.
func jsonIn(t []byte) ([]byte, bool) {
	return t, jsontext.Valid(t)
}

// notJSONMessage refuses a string that starts with open ([ or {) where n
// wants an array or an object, but that is not valid JSON.
func (n *node) notJSONMessage(raw []byte, open byte) string {
	return "expected " + n.typeName() + ", got a string that starts with " + string(open) +
		" but is not valid JSON: " + showValue(raw)
}

// coerceNumber returns the JSON number that s writes, plainly or as an
// amount; for an integer, only a whole one, written as digits.
func coerceNumber(s []byte, integer bool) ([]byte, bool) {
	lit, ok := plainNumber(s)
	if !ok {
		lit, ok = amount(s)
	}
	if !ok {
		return nil, false
	}
	if !integer || !bytes.ContainsAny(lit, ".eE") {
		return lit, true
	}
	f, ok := parseFloatBytes(lit)
	if !ok || f != math.Trunc(f) || math.Abs(f) > maxExactInteger {
		return nil, false
	}
	return strconv.AppendInt(nil, int64(f), 10), true
}

// plainNumber returns s if it is a JSON number literal within float64's
// range.
func plainNumber(s []byte) ([]byte, bool) {
	if len(s) == 0 {
		return nil, false
	}
	if end, ok := jsontext.CheckNumber(s, 0); !ok || end != len(s) {
		return nil, false
	}
	f, ok := parseFloatBytes(s)
	return s, ok && !math.IsInf(f, 0)
}

func skipDigits(s []byte, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// amount reads a sum written with a £ or $ sign or thousands separators,
// and returns it as a JSON number literal.
func amount(s []byte) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	if len(s) > 0 && s[0] == '-' {
		out = append(out, '-')
		s = s[1:]
	}
	currency := false
	if r, size := utf8.DecodeRune(s); r == '£' || r == '$' {
		currency = true
		s = s[size:]
	}
	if len(out) == 0 && currency && len(s) > 0 && s[0] == '-' {
		out = append(out, '-')
		s = s[1:]
	}
	whole, frac, hasFrac := bytes.Cut(s, []byte{'.'})
	groups := bytes.Split(whole, []byte{','})
	if len(groups) == 1 && !currency {
		return nil, false // a plain number, which plainNumber refused
	}
	for i, g := range groups {
		n := len(g)
		if n == 0 || skipDigits(g, 0) != n || i > 0 && n != 3 ||
			i == 0 && len(groups) > 1 && (n > 3 || g[0] == '0') {
			return nil, false
		}
		out = append(out, g...)
	}
	if hasFrac {
		if len(frac) == 0 || skipDigits(frac, 0) != len(frac) {
			return nil, false
		}
		out = append(append(out, '.'), frac...)
	}
	// A lone separator with no decimal part and no currency sign could be a
	// decimal comma: "1,234" may mean 1.234.
	if !currency && len(groups) == 2 && !hasFrac {
		return nil, false
	}
	return plainNumber(out)
}

// splitList returns the JSON array of the comma-separated items of s.
func splitList(s []byte) []byte {
	out := []byte{'['}
	first := true
	for item := range bytes.SplitSeq(s, []byte{','}) {
		item = bytes.TrimSpace(item)
		if len(item) == 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendQuoted(out, item)
	}
	return append(out, ']')
}
