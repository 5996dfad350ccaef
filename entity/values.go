package entity

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// SQLiteTimeLayout is how entity tools write a timestamp into SQLite,
// which has no type for one: UTC text with exactly six fractional digits,
// so that text order is time order and filters compare them correctly.
// Reading also accepts RFC 3339 with any offset and the "YYYY-MM-DD
// HH:MM:SS[.fff]" forms SQLite's own functions write (read as UTC).
const SQLiteTimeLayout = "2006-01-02T15:04:05.000000Z"

// dateLayout is how dates are written everywhere and served.
const dateLayout = "2006-01-02"

// readLayouts are the timestamp forms read from text columns, tried in
// order; a form without an offset is UTC.
var readLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	dateLayout,
}

// encode turns a value from a call (JSON decoded with UseNumber) or from
// the filter translator (string, int64, float64, bool, time.Time) into
// the argument bound for a column of type t on engine e. The one encoding
// per engine: timestamps are [SQLiteTimeLayout] text on SQLite and
// time.Time (UTC) elsewhere (a call's text finer than a microsecond is
// refused; a hook's time.Time, such as time.Now(), is cut to one); dates
// "YYYY-MM-DD" text; booleans 0/1 on SQLite and MySQL; UUIDs in lower
// case; numbers float64 on SQLite and their decimal text on the others,
// so a NUMERIC/DECIMAL column keeps every digit sent.
func encode(e Engine, t Type, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch t {
	case Integer:
		return encodeInteger(v)
	case Number:
		return encodeNumber(e, v)
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("must be true or false")
		}
		if e == PostgreSQL {
			return b, nil
		}
		if b {
			return int64(1), nil
		}
		return int64(0), nil
	case Timestamp:
		return encodeTimestamp(e, v)
	case Date:
		return encodeDate(v)
	case JSON:
		return encodeJSON(v)
	case Array:
		return nil, errors.New("an array is encoded with its items' type (encodeArray)")
	}
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("must be a string")
	}
	if strings.IndexByte(s, 0) >= 0 {
		// PostgreSQL's text cannot hold one; no engine gets one.
		return nil, fmt.Errorf("must not hold a NUL character")
	}
	if t == UUID {
		// One spelling per UUID on every engine, as PostgreSQL's uuid type
		// reads it: on a text column "0B9E..." and "0b9e..." would
		// otherwise be two records with one identity.
		return strings.ToLower(s), nil
	}
	return s, nil
}

func encodeInteger(v any) (any, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, nil
		}
		f, err := n.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("must be a whole number that fits in 64 bits")
		}
		return int64(f), nil
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return nil, fmt.Errorf("must be a whole number")
		}
		return int64(n), nil
	}
	return nil, fmt.Errorf("must be a whole number")
}

func encodeNumber(e Engine, v any) (any, error) {
	var f float64
	var text string
	switch n := v.(type) {
	case json.Number:
		x, err := n.Float64()
		if err != nil {
			return nil, fmt.Errorf("must be a number")
		}
		f, text = x, n.String()
	case float64:
		f, text = n, strconv.FormatFloat(n, 'g', -1, 64)
	case int64:
		f, text = float64(n), strconv.FormatInt(n, 10)
	case int:
		f, text = float64(n), strconv.Itoa(n)
	default:
		return nil, fmt.Errorf("must be a number")
	}
	if e == SQLite {
		return f, nil
	}
	return text, nil
}

func encodeTimestamp(e Engine, v any) (any, error) {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		p, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return nil, fmt.Errorf("must be an RFC 3339 timestamp such as 2026-01-02T15:04:05Z")
		}
		if p.Nanosecond()%1000 != 0 {
			// Every engine keeps microseconds at most, and filters
			// refuse finer literals: a write does not cut them silently.
			return nil, fmt.Errorf("must be precise to the microsecond at most: drop the digits after the sixth decimal of the seconds")
		}
		t = p
	default:
		return nil, fmt.Errorf("must be an RFC 3339 timestamp")
	}
	t = t.UTC().Truncate(time.Microsecond)
	if y := t.Year(); y < 1 || y > 9999 {
		// MySQL's driver cannot send such a time, and on SQLite a fifth
		// year digit would break the text order filters rely on.
		return nil, fmt.Errorf("must be a timestamp from year 1 to 9999 once made UTC")
	}
	if e == SQLite {
		return t.Format(SQLiteTimeLayout), nil
	}
	return t, nil
}

func encodeDate(v any) (any, error) {
	switch x := v.(type) {
	case time.Time:
		return x.Format(dateLayout), nil
	case string:
		if _, err := time.Parse(dateLayout, x); err != nil {
			return nil, fmt.Errorf("must be a date such as 2026-01-02")
		}
		return x, nil
	}
	return nil, fmt.Errorf("must be a date such as 2026-01-02")
}

// appendValue appends the JSON of a value scanned from a column of type
// t. A value the type does not explain is served as text rather than
// dropped.
func appendValue(b []byte, t Type, v any) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch t {
	case JSON, Array:
		return appendJSON(b, v)
	case Integer, Number:
		return appendNumber(b, v)
	case Boolean:
		return appendBool(b, v)
	case Timestamp:
		if tm, ok := timeOf(v); ok {
			b = append(b, '"')
			b = tm.UTC().AppendFormat(b, time.RFC3339Nano)
			return append(b, '"')
		}
	case Date:
		if tm, ok := timeOf(v); ok {
			b = append(b, '"')
			b = tm.AppendFormat(b, dateLayout)
			return append(b, '"')
		}
	case UUID:
		if u, ok := uuidBytes(v); ok {
			return appendString(b, formatUUID(u))
		}
	}
	return appendString(b, textOf(v))
}

func appendNumber(b []byte, v any) []byte {
	switch n := v.(type) {
	case int64:
		return strconv.AppendInt(b, n, 10)
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return append(b, "null"...)
		}
		return strconv.AppendFloat(b, n, 'g', -1, 64)
	case bool:
		if n {
			return append(b, '1')
		}
		return append(b, '0')
	}
	s := textOf(v)
	// A DECIMAL's text is kept digit for digit when it is a JSON number.
	if json.Valid([]byte(s)) && s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return append(b, s...)
	}
	switch s {
	case "NaN", "Infinity", "-Infinity":
		// A number JSON cannot write is null, as the SQL of the served
		// value makes it (see served.go); this is for a Querier that
		// hands one over anyway.
		return append(b, "null"...)
	}
	return appendString(b, s)
}

func appendBool(b []byte, v any) []byte {
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return strconv.AppendBool(b, x != 0)
	}
	s := textOf(v)
	return strconv.AppendBool(b, s != "0" && s != "" && !strings.EqualFold(s, "false") && s != "f")
}

// timeOf reads a timestamp or date scanned as time.Time or as text.
func timeOf(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string, []byte:
		s := strings.TrimSpace(textOf(x))
		for _, l := range readLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

func uuidBytes(v any) ([16]byte, bool) {
	switch x := v.(type) {
	case [16]byte:
		return x, true
	case []byte:
		if len(x) == 16 {
			return [16]byte(x), true
		}
	}
	return [16]byte{}, false
}

func formatUUID(u [16]byte) string {
	const hexd = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexd[c>>4], hexd[c&15])
	}
	return string(out)
}

func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

// appendString appends s as a JSON string. Text that needs no escape, the
// common case, is copied as it is; the rest is written by encoding/json
// (invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped, and so are
// <, > and &, which any JSON reader decodes alike). The module keeps its
// own writer because it is versioned apart from the root's internal
// packages.
func appendString(b []byte, s string) []byte {
	for _, r := range s {
		if r < 0x20 || r == '"' || r == '\\' || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
