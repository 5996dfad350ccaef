package jsonnum

import (
	"encoding/json"
	"math/big"
	"testing"
)

func TestAppendCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "0"}, {"-0.000", "0"}, {"0e5", "0"},
		{"8", "8e0"}, {"8.0", "8e0"}, {"80e-1", "8e0"}, {"0.8e1", "8e0"},
		{"-1.50", "-15e-1"}, {"100", "1e2"}, {"1E+2", "1e2"},
		{"9007199254740993", "9007199254740993e0"},
		{"1e999999999", "1e999999999"},
		{"0.000120", "12e-5"},
	}
	for _, tt := range tests {
		got, ok := AppendCanonical(nil, []byte(tt.in))
		if !ok || string(got) != tt.want {
			t.Errorf("AppendCanonical(%s) = %s, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "-", "0x1p3", "Inf", "1e", "1e+", "1e99999999999999999999", "1.2.3", "a"} {
		if got, ok := AppendCanonical(nil, []byte(bad)); ok {
			t.Errorf("AppendCanonical(%q) = %s, true; want false", bad, got)
		}
	}
}

// Equal agrees with exact rational arithmetic on numbers of reasonable
// exponent.
func FuzzEqual(f *testing.F) {
	f.Add("1.50", "15e-1")
	f.Add("9007199254740993", "9007199254740992")
	f.Add("-0", "0.0")
	f.Fuzz(func(t *testing.T, a, b string) {
		var na, nb json.Number
		if json.Unmarshal([]byte(a), &na) != nil || json.Unmarshal([]byte(b), &nb) != nil || len(a) > 40 || len(b) > 40 {
			return
		}
		ra, oka := new(big.Rat).SetString(a)
		rb, okb := new(big.Rat).SetString(b)
		if !oka || !okb {
			return
		}
		if got, want := Equal([]byte(a), []byte(b)), ra.Cmp(rb) == 0; got != want {
			t.Errorf("Equal(%s, %s) = %v; big.Rat says %v", a, b, got, want)
		}
	})
}
