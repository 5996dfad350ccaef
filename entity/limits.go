package entity

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
)

// This file is about what a column's SQL type holds beyond its field
// type (Field's MaxLength, Padded, Precision, Scale, Minimum, Maximum
// and TimeStep): the write schemas say it, and checkSize refuses what the
// column would cut, round or refuse, so that a model learns it from the
// schema and, failing that, from a sentence naming the field, never from
// a stored value that differs from the one it sent.

// sized adds to s, a write schema of f's values, the keywords of what
// f's column holds, keeping tighter ones s already has (from a Go type's
// tags).
func sized(s *schema.Schema, f *Field) {
	switch f.Type {
	case Array:
		if s.Items != nil {
			item := *s.Items
			sized(&item, f.itemField())
			s.Items = &item
		}
	case Text:
		if f.MaxLength > 0 && (s.MaxLength == nil || *s.MaxLength > f.MaxLength) {
			s.MaxLength = ptr(f.MaxLength)
		}
	case Integer, Number:
		lo, hi := f.bounds()
		if lo != nil && (s.Minimum == nil || *s.Minimum < *lo) {
			s.Minimum = lo
		}
		if hi != nil && (s.Maximum == nil || *s.Maximum > *hi) {
			s.Maximum = hi
		}
		if f.Type == Number && f.Precision > 0 && s.MultipleOf == nil {
			m, _ := strconv.ParseFloat("1e"+strconv.Itoa(-f.Scale), 64)
			s.MultipleOf = &m
		}
	}
}

// bounds are the least and greatest values of f's column as JSON Schema
// numbers: Minimum and Maximum, or a fixed-point column's largest
// magnitude, whichever is tighter.
func (f *Field) bounds() (lo, hi *float64) {
	if f.Minimum != nil {
		lo = ptr(float64(*f.Minimum))
	}
	if f.Maximum != nil {
		hi = ptr(float64(*f.Maximum))
	}
	if f.Type == Number && f.Precision > 0 {
		top, _ := strconv.ParseFloat(f.largest(), 64)
		if hi == nil || *hi > top {
			hi = &top
		}
		if lo == nil || *lo < -top {
			lo = ptr(-top)
		}
	}
	return lo, hi
}

// largest is the greatest value a numeric(Precision, Scale) column holds,
// in decimal: 999999.99 for numeric(8,2), 99000 for numeric(2,-3),
// 0.00999 for numeric(3,5).
func (f *Field) largest() string {
	p, s := f.Precision, f.Scale
	switch {
	case s <= 0:
		return strings.Repeat("9", p) + strings.Repeat("0", -s)
	case p > s:
		return strings.Repeat("9", p-s) + "." + strings.Repeat("9", s)
	}
	return "0." + strings.Repeat("0", s-p) + strings.Repeat("9", p)
}

// checkSize refuses a value for f that its column would cut, round or
// refuse. v is a value as a call or a hook gives it (json.Number, string,
// float64, an integer); what encode refuses anyway is left to it.
func checkSize(f *Field, v any) error {
	switch f.Type {
	case Text:
		s, ok := v.(string)
		if !ok {
			return nil
		}
		if n := utf8.RuneCountInString(s); f.MaxLength > 0 && n > f.MaxLength {
			return fmt.Errorf("the column holds at most %d characters; got %d", f.MaxLength, n)
		}
		if f.Padded && strings.HasSuffix(s, " ") {
			return fmt.Errorf("the column (char(n)) drops trailing spaces, so %s would be stored as %s; send it without them",
				showValue(s), showValue(strings.TrimRight(s, " ")))
		}
	case Integer:
		n, err := encodeInteger(v)
		if err != nil {
			return nil
		}
		i := n.(int64)
		if f.Minimum != nil && i < *f.Minimum || f.Maximum != nil && i > *f.Maximum {
			return fmt.Errorf("the column holds %s; got %d", f.rangeText(), i)
		}
	case Number:
		return checkNumber(f, v)
	case Timestamp:
		return checkTime(f, v)
	}
	return nil
}

// timeStep is the step of a timestamp column that keeps digits digits
// of the seconds after the point, or zero for the microseconds every
// engine keeps.
func timeStep(digits int) time.Duration {
	if digits < 0 || digits >= 6 {
		return 0
	}
	step := time.Second
	for range digits {
		step /= 10
	}
	return step
}

// checkTime refuses a timestamp between two of f's column's steps, which
// PostgreSQL would round and MySQL cut. What encode refuses (text that is
// not a timestamp, nanoseconds) is left to it.
func checkTime(f *Field, v any) error {
	if f.TimeStep <= 0 {
		return nil
	}
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		p, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			return nil
		}
		t = p
	default:
		return nil
	}
	if t.Truncate(f.TimeStep).Equal(t) {
		return nil
	}
	keeps := "steps of " + f.TimeStep.String()
	switch digits := len(strconv.Itoa(int(time.Second/max(f.TimeStep, 1)))) - 1; {
	case f.TimeStep == time.Second:
		keeps = "whole seconds"
	case f.TimeStep < time.Second && timeStep(digits) == f.TimeStep:
		keeps = fmt.Sprintf("%d digits of the seconds after the point", digits)
	}
	return fmt.Errorf("the column keeps %s and would change %s; send it without the digits it cannot keep",
		keeps, showValue(t.Format(time.RFC3339Nano)))
}

// rangeText says which integers f's column holds: "-128 to 127", "0 or
// more".
func (f *Field) rangeText() string {
	switch {
	case f.Minimum != nil && f.Maximum != nil:
		return fmt.Sprintf("%d to %d", *f.Minimum, *f.Maximum)
	case f.Minimum != nil:
		return fmt.Sprintf("%d or more", *f.Minimum)
	}
	return fmt.Sprintf("%d or less", *f.Maximum)
}

// checkNumber refuses a number f's column would round (more digits after
// the point than its scale) or cannot hold, reading the digits the call
// sent, exactly.
func checkNumber(f *Field, v any) error {
	text, ok := numberText(v)
	if !ok {
		return nil
	}
	high, low, zero, ok := decimalDigits(text)
	if f.Precision > 0 {
		switch {
		case !ok || !zero && int64(f.Precision-f.Scale) < high:
			return fmt.Errorf("the column holds -%s to %s; %s does not fit", f.largest(), f.largest(), clip(text, 40))
		case !zero && low < int64(-f.Scale):
			return fmt.Errorf("the column would round %s: %s", clip(text, 40), scaleText(f.Scale))
		}
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(x, 0) {
		return nil
	}
	if f.Minimum != nil && x < float64(*f.Minimum) || f.Maximum != nil && x > float64(*f.Maximum) {
		return fmt.Errorf("the column holds %s; got %s", f.rangeText(), clip(text, 40))
	}
	return nil
}

// scaleText says how many digits a column of scale s keeps.
func scaleText(s int) string {
	switch {
	case s == 1:
		return "it keeps 1 digit after the point"
	case s > 1:
		return fmt.Sprintf("it keeps %d digits after the point", s)
	case s == 0:
		return "it keeps whole numbers"
	}
	return "it keeps multiples of 1" + strings.Repeat("0", -s)
}

// numberText is the decimal text of a number value.
func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return n.String(), true
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return "", false
		}
		return strconv.FormatFloat(n, 'g', -1, 64), true
	case int64:
		return strconv.FormatInt(n, 10), true
	case int:
		return strconv.Itoa(n), true
	}
	return "", false
}

// decimalDigits reads the decimal text of a number ("-12.30e4", as JSON
// writes one) as the powers of ten its significant digits span: the value
// is below 10^high in magnitude and a multiple of 10^low (123.4: high 3,
// low -1). zero reports a zero, which has no digits; ok is false for text
// that is not a number or whose exponent is out of all proportion.
func decimalDigits(text string) (high, low int64, zero, ok bool) {
	s := strings.TrimPrefix(text, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	e := int64(0)
	if hasExp {
		var err error
		if e, err = strconv.ParseInt(exp, 10, 32); err != nil {
			return 0, 0, false, false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, 0, false, false
	}
	point := int64(len(whole)) + e
	trimmed := strings.TrimLeft(digits, "0")
	point -= int64(len(digits) - len(trimmed))
	trimmed = strings.TrimRight(trimmed, "0")
	if trimmed == "" {
		return 0, 0, true, true
	}
	return point, point - int64(len(trimmed)), false, true
}
