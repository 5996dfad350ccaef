package schema

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// str validates the string raw (with its quotes) against n's string
// keywords.
func (st *state) str(n *node, raw []byte) {
	if n.minLength < 0 && n.maxLength < 0 && n.pattern == nil && n.format == nil {
		return
	}
	content := raw[1 : len(raw)-1]
	if bytes.IndexByte(content, '\\') >= 0 {
		st.scratch = jsontext.Unescape(st.scratch[:0], content)
		content = st.scratch
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		length := utf8.RuneCount(content)
		if n.minLength >= 0 && length < n.minLength {
			st.fail("must be at least " + countOf(n.minLength, "character") + ", got " + itoa(length))
		}
		if n.maxLength >= 0 && length > n.maxLength {
			st.fail("must be at most " + countOf(n.maxLength, "character") + ", got " + itoa(length))
		}
	}
	if n.pattern != nil && !n.pattern.Match(content) {
		st.fail("must match the pattern " + n.pattern.String() + ", got " + showValue(raw))
	}
	if n.format != nil && !n.format.check(content) {
		st.fail("expected " + n.format.what + ", got " + showValue(raw))
	}
}

// maxExactInteger is the largest integer a float64 holds exactly, 2^53.
const maxExactInteger = 1 << 53

// number validates the number literal st.data[i:end] against n's number
// keywords. Under [Unambiguous], an integer written with a fraction or an
// exponent (12.0, 1e3) is rewritten as plain digits, so that it decodes
// into a Go integer.
func (st *state) number(n *node, i, end int) {
	lit := st.data[i:end]
	normalize := n.kind == kindInteger && st.policy == Unambiguous && !st.noEdit &&
		bytes.ContainsAny(lit, ".eE")
	if !n.numeric && !normalize {
		return
	}
	f, ok := parseFloatBytes(lit)
	if !ok {
		return
	}
	if normalize && math.Abs(f) <= maxExactInteger {
		st.edits = append(st.edits, edit{start: i, end: end, rep: strconv.AppendInt(nil, int64(f), 10)})
	}
	if n.numeric {
		st.bounds(n, f, lit)
	}
}

// bounds checks f, written lit, against n's number keywords.
func (st *state) bounds(n *node, f float64, lit []byte) {
	if n.minimum != nil && f < *n.minimum {
		st.fail("must be at least " + formatNumber(*n.minimum) + ", got " + showValue(lit))
	}
	if n.exclMin != nil && f <= *n.exclMin {
		st.fail("must be greater than " + formatNumber(*n.exclMin) + ", got " + showValue(lit))
	}
	if n.maximum != nil && f > *n.maximum {
		st.fail("must be at most " + formatNumber(*n.maximum) + ", got " + showValue(lit))
	}
	if n.exclMax != nil && f >= *n.exclMax {
		st.fail("must be less than " + formatNumber(*n.exclMax) + ", got " + showValue(lit))
	}
	if n.multipleOf != nil && !isMultiple(f, *n.multipleOf) {
		st.fail("must be a multiple of " + formatNumber(*n.multipleOf) + ", got " + showValue(lit))
	}
}

// isMultiple reports whether f is a multiple of m (m > 0), allowing for the
// rounding of decimal fractions such as 0.0075 / 0.0001.
func isMultiple(f, m float64) bool {
	if math.IsInf(f, 0) {
		return false
	}
	q := f / m
	if math.IsInf(q, 0) || math.IsNaN(q) {
		return false
	}
	return math.Abs(q-math.Round(q)) <= 1e-9*math.Max(1, math.Abs(q))
}

// typeMessage says which type n wants and which value came instead.
func (n *node) typeMessage(raw []byte) string {
	return "expected " + n.typeName() + ", got " + showValue(raw)
}

// typeName names n's type with its article: "a string", "an integer".
func (n *node) typeName() string {
	var name string
	switch n.kind {
	case kindBoolean:
		name = "a boolean"
	case kindNumber:
		name = "a number"
	case kindInteger:
		name = "an integer"
	case kindString:
		name = "a string"
	case kindArray:
		name = "an array"
	case kindObject:
		name = "an object"
	default:
		name = "a value"
	}
	if n.nullable {
		name += " or null"
	}
	return name
}

// enumMessage lists the allowed values and the value that came.
func (n *node) enumMessage(raw []byte) string {
	return "must be one of: " + n.enumText + ", got " + showValue(raw)
}

// unknownMessage refuses the property key by name and lists the known ones.
func (n *node) unknownMessage(key []byte) string {
	msg := "is not allowed: unknown property " + strconv.Quote(string(key))
	if n.known == "" {
		return msg + "; this object takes no properties"
	}
	return msg + "; known properties: " + n.known
}

// maxShown is how many characters of a value a message shows.
const maxShown = 40

// showValue writes a JSON value for a message: compact, and cut to about
// maxShown characters.
func showValue(raw []byte) string {
	s := compactJSON(raw)
	if utf8.RuneCount(s) <= maxShown {
		return string(s)
	}
	cut := 0
	for range maxShown - 1 {
		_, size := utf8.DecodeRune(s[cut:])
		cut += size
	}
	if s[0] == '"' {
		return string(s[:cut]) + `…"`
	}
	return string(s[:cut]) + "…"
}

// compactJSON returns raw without insignificant space.
func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return bytes.TrimSpace(raw)
	}
	return b.Bytes()
}

// countOf writes "1 item", "2 items".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}

func itoa(n int) string { return strconv.Itoa(n) }

// formatNumber writes a schema bound the way encoding/json writes a
// float64: plain digits from 1e-6 to 1e21 (2147483647, not
// 2.147483647e+09), an exponent outside.
func formatNumber(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
