package entity

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// decimalDigits reads the span of a number's significant digits exactly,
// whatever its exponent, without building the number.
func TestDecimalDigits(t *testing.T) {
	tests := []struct {
		text      string
		high, low int64
		zero, ok  bool
	}{
		{"123.4", 3, -1, false, true},
		{"-123.4", 3, -1, false, true},
		{"1.230", 1, -2, false, true},
		{"0.001", -2, -3, false, true},
		{"1000", 4, 3, false, true},
		{"1.5e3", 4, 2, false, true},
		{"15E-1", 1, -1, false, true},
		{"0", 0, 0, true, true},
		{"-0.000e7", 0, 0, true, true},
		{"1e2147483647", 2147483648, 2147483647, false, true},
		{"1e99999999999", 0, 0, false, false},
		{"x", 0, 0, false, false},
		{"", 0, 0, false, false},
	}
	for _, tt := range tests {
		high, low, zero, ok := decimalDigits(tt.text)
		if high != tt.high || low != tt.low || zero != tt.zero || ok != tt.ok {
			t.Errorf("decimalDigits(%q) = %d, %d, %v, %v; want %d, %d, %v, %v",
				tt.text, high, low, zero, ok, tt.high, tt.low, tt.zero, tt.ok)
		}
	}
}

// checkSize refuses exactly what a column would round, cut or refuse,
// and keeps the rest, for the sizes PostgreSQL and MySQL allow.
func TestCheckSize(t *testing.T) {
	dec := func(p, s int) *Field { return &Field{Name: "x", Type: Number, Precision: p, Scale: s} }
	unsigned := dec(8, 2)
	unsigned.Minimum = ptr(int64(0))
	small := &Field{Name: "n", Type: Integer, Minimum: ptr(int64(-128)), Maximum: ptr(int64(127))}
	code := &Field{Name: "c", Type: Text, MaxLength: 3, Padded: true}
	whole := &Field{Name: "w", Type: Timestamp, TimeStep: time.Second}
	milli := &Field{Name: "m", Type: Timestamp, TimeStep: time.Millisecond}
	minute := &Field{Name: "h", Type: Timestamp, TimeStep: time.Minute}
	tests := []struct {
		f    *Field
		v    any
		want string // "" for kept
	}{
		{dec(8, 2), json.Number("999999.99"), ""},
		{dec(8, 2), json.Number("-999999.99"), ""},
		{dec(8, 2), json.Number("1.230"), ""},
		{dec(8, 2), json.Number("0.00"), ""},
		{dec(8, 2), json.Number("1.239"), "would round 1.239: it keeps 2 digits after the point"},
		{dec(8, 2), json.Number("999999.995"), "would round"},
		{dec(8, 2), json.Number("1000000"), "holds -999999.99 to 999999.99; 1000000 does not fit"},
		{dec(8, 2), json.Number("1e99999999999"), "does not fit"},
		{dec(8, 2), 1.25, ""},
		{dec(8, 2), 0.30000000000000004, "would round"}, // 0.1 + 0.2 in float64
		{dec(20, 2), json.Number("123456789012345678.123"), "would round"},
		{dec(5, 0), json.Number("12345"), ""},
		{dec(5, 0), json.Number("1.5"), "it keeps whole numbers"},
		{dec(2, -3), json.Number("99000"), ""},
		{dec(2, -3), json.Number("1234"), "it keeps multiples of 1000"},
		{dec(2, -3), json.Number("100000"), "holds -99000 to 99000"},
		{dec(3, 5), json.Number("0.00999"), ""},
		{dec(3, 5), json.Number("0.01"), "holds -0.00999 to 0.00999"},
		{dec(1, 1), json.Number("0.9"), ""},
		{unsigned, json.Number("-1"), "holds 0 or more; got -1"},
		{small, json.Number("127"), ""},
		{small, json.Number("128"), "holds -128 to 127; got 128"},
		{small, int64(-129), "holds -128 to 127; got -129"},
		{code, "abc", ""},
		{code, "abcd", "at most 3 characters; got 4"},
		{code, "ab ", `drops trailing spaces, so "ab " would be stored as "ab"`},
		{code, "é€字", ""},
		{whole, "2026-01-02T03:04:05Z", ""},
		{whole, "2026-01-02T03:04:05+02:00", ""},
		{whole, "2026-01-02T03:04:05.5Z", `keeps whole seconds and would change "2026-01-02T03:04:05.5Z"`},
		{whole, time.Date(2026, 1, 2, 3, 4, 5, 1000, time.UTC), "keeps whole seconds"},
		{milli, "2026-01-02T03:04:05.123Z", ""},
		{milli, "2026-01-02T03:04:05.1234Z", "keeps 3 digits of the seconds after the point"},
		{minute, "2026-01-02T03:04:00Z", ""},
		{minute, "2026-01-02T03:04:05Z", "keeps steps of 1m0s"},
		{&Field{Name: "t", Type: Timestamp}, "2026-01-02T03:04:05.123456Z", ""},
		{whole, "not a time", ""}, // encode refuses it
	}
	for _, tt := range tests {
		err := checkSize(tt.f, tt.v)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("checkSize(%+v, %v) = %v; want it kept", *tt.f, tt.v, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("checkSize(%+v, %v) = %v; want %q", *tt.f, tt.v, err, tt.want)
		}
	}
}
