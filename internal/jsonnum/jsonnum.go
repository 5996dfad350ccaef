// Package jsonnum compares JSON numbers by their exact value, in time
// linear in their text whatever their exponent, and without allocating
// for numbers of up to 60 digits or so.
package jsonnum

import "strconv"

// maxExponent bounds the exponents read, far beyond any float64 and far
// below int64's limit, so that adjusting one cannot overflow.
const maxExponent = 1 << 60

// AppendCanonical appends the JSON number num (valid JSON number syntax)
// in a canonical form: a sign for a negative value, the significant
// digits, 'e' and the exponent of the last of them ("-15e-1" for -1.50,
// "1e2" for 100.0), and "0" for any zero. Two numbers have the same value
// exactly when their forms are equal. It reports false, appending
// nothing, for text that is not a number or an exponent beyond ±2^60.
func AppendCanonical(dst, num []byte) ([]byte, bool) {
	neg := len(num) > 0 && num[0] == '-'
	if neg {
		num = num[1:]
	}
	mant, exp := num, int64(0)
	for i, c := range num {
		if c == 'e' || c == 'E' {
			e, ok := exponent(num[i+1:])
			if !ok {
				return dst, false
			}
			mant, exp = num[:i], e
			break
		}
	}
	whole, frac := mant, mant[len(mant):]
	for i, c := range mant {
		if c == '.' {
			whole, frac = mant[:i], mant[i+1:]
			break
		}
	}
	if len(whole) == 0 {
		return dst, false
	}
	n := len(whole) + len(frac)
	digit := func(i int) byte {
		if i < len(whole) {
			return whole[i]
		}
		return frac[i-len(whole)]
	}
	first, last := -1, -1
	for i := range n {
		c := digit(i)
		if c < '0' || c > '9' {
			return dst, false
		}
		if c != '0' {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return append(dst, '0'), true
	}
	if neg {
		dst = append(dst, '-')
	}
	for i := first; i <= last; i++ {
		dst = append(dst, digit(i))
	}
	dst = append(dst, 'e')
	return strconv.AppendInt(dst, exp-int64(len(frac))+int64(n-1-last), 10), true
}

// exponent reads an exponent's digits, with an optional sign.
func exponent(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var e int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if e = e*10 + int64(c-'0'); e > maxExponent {
			return 0, false
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

// Equal reports whether the JSON numbers a and b have exactly the same
// value; text that is not a number equals nothing.
func Equal(a, b []byte) bool {
	var x, y [64]byte
	ca, oka := AppendCanonical(x[:0], a)
	cb, okb := AppendCanonical(y[:0], b)
	return oka && okb && string(ca) == string(cb)
}
