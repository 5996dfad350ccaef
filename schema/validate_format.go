package schema

import (
	"bytes"
	"net/netip"
	"strings"
)

// formatRule checks one string format.
type formatRule struct {
	what  string // what the format is, for messages: "a UUID"
	check func(s []byte) bool
}

// formatRules holds the formats the validator checks. Other formats pass
// unchecked, as JSON Schema allows.
var formatRules = map[string]*formatRule{
	"date":      {"a date written yyyy-MM-dd", isDate},
	"date-time": {"a date and time written yyyy-MM-ddTHH:mm:ssZ (RFC 3339)", isDateTime},
	"time":      {"a time written HH:mm:ssZ (RFC 3339)", isTime},
	"email":     {"an email address", isEmail},
	"uri":       {"an absolute URI", isURI},
	"uuid":      {"a UUID written xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", isUUID},
	"hostname":  {"a hostname", isHostname},
	"ipv4":      {"an IPv4 address", isIPv4},
	"ipv6":      {"an IPv6 address", isIPv6},
}

// digits reads the decimal number in s[i:i+n], or -1 if it is not n ASCII
// digits.
func digits(s []byte, i, n int) int {
	if i+n > len(s) {
		return -1
	}
	v := 0
	for _, c := range s[i : i+n] {
		if c < '0' || c > '9' {
			return -1
		}
		v = v*10 + int(c-'0')
	}
	return v
}

// isDate checks an RFC 3339 full-date: yyyy-MM-dd, a day that exists.
func isDate(s []byte) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, m, d := digits(s, 0, 4), digits(s, 5, 2), digits(s, 8, 2)
	return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m)
}

// daysIn returns the number of days in month m of year y.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// isTime checks an RFC 3339 full-time: HH:mm:ss, an optional fraction, and
// Z or an offset. A leap second (:60) must fall at 23:59 UTC.
func isTime(s []byte) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, m, sec := digits(s, 0, 2), digits(s, 3, 2), digits(s, 6, 2)
	if h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 60 {
		return false
	}
	i := 8
	if s[i] == '.' {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i+1 {
			return false
		}
		i = j
	}
	rest := s[i:]
	offset := 0 // minutes east of UTC
	switch {
	case len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z'):
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, om := digits(rest, 1, 2), digits(rest, 4, 2)
		if oh < 0 || oh > 23 || om < 0 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-offset)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

// isDateTime checks an RFC 3339 date-time: a full-date, T, a full-time.
func isDateTime(s []byte) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// isUUID checks the 8-4-4-4-12 hexadecimal form.
func isUUID(s []byte) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isHostname checks an RFC 1123 hostname: dot-separated labels of letters,
// digits and inner hyphens, 1 to 63 characters each, 253 in all.
func isHostname(s []byte) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	for label := range bytes.SplitSeq(s, []byte{'.'}) {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				return false
			}
		}
		// "ab--" is reserved for encodings such as punycode's "xn--".
		if len(label) >= 4 && label[2] == '-' && label[3] == '-' && !(label[0]|0x20 == 'x' && label[1]|0x20 == 'n') {
			return false
		}
	}
	return true
}

// isIPv4 checks a dotted quad without leading zeros.
func isIPv4(s []byte) bool {
	parts := 0
	for part := range bytes.SplitSeq(s, []byte{'.'}) {
		parts++
		if len(part) == 0 || len(part) > 3 || (len(part) > 1 && part[0] == '0') {
			return false
		}
		if v := digits(part, 0, len(part)); v < 0 || v > 255 {
			return false
		}
	}
	return parts == 4
}

// isIPv6 checks an IPv6 address without a zone.
func isIPv6(s []byte) bool {
	if bytes.IndexByte(s, ':') < 0 || bytes.IndexByte(s, '%') >= 0 {
		return false
	}
	addr, err := netip.ParseAddr(string(s))
	return err == nil && addr.Is6()
}

// isEmail checks local@domain: a dot-atom local part (or a quoted one) and
// a hostname or a bracketed IP address.
func isEmail(s []byte) bool {
	at := bytes.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !isLocalPart(local) {
		return false
	}
	if domain[0] == '[' && domain[len(domain)-1] == ']' {
		ip := domain[1 : len(domain)-1]
		if len(ip) > 5 && bytes.EqualFold(ip[:5], []byte("IPv6:")) {
			return isIPv6(ip[5:])
		}
		return isIPv4(ip)
	}
	return isHostname(domain)
}

// isLocalPart checks the part of an email address before the @: a
// dot-atom, or a quoted string of printable ASCII with \ escapes.
func isLocalPart(s []byte) bool {
	if len(s) > 64 {
		return false
	}
	if s[0] == '"' {
		return isQuotedLocal(s)
	}
	if s[0] == '.' || s[len(s)-1] == '.' || bytes.Contains(s, []byte("..")) {
		return false
	}
	for _, c := range s {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),:;<>@[\]`, c) >= 0 {
			return false
		}
	}
	return true
}

// isQuotedLocal checks a quoted local part such as "joe bloggs".
func isQuotedLocal(s []byte) bool {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return i == len(s)-1
		case c == '\\':
			i++
			if i >= len(s) || s[i] < ' ' || s[i] >= 0x7f {
				return false
			}
		case c < ' ' || c >= 0x7f:
			return false
		}
	}
	return false
}

// isURI checks an absolute URI (RFC 3986): a scheme, a colon, and only
// characters a URI may hold, with well-formed percent escapes.
func isURI(s []byte) bool {
	colon := bytes.IndexByte(s, ':')
	if colon < 1 || !isLetter(s[0]) {
		return false
	}
	for _, c := range s[1:colon] {
		if !(isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	rest := s[colon+1:]
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '%':
			if i+2 >= len(rest) || !isHex(rest[i+1]) || !isHex(rest[i+2]) {
				return false
			}
			i += 2
		case isLetter(c) || '0' <= c && c <= '9':
		case strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0:
		default:
			return false
		}
	}
	return !hasBadAuthority(rest)
}

// hasBadAuthority reports an authority with brackets outside an IP literal
// or a port that is not a number.
func hasBadAuthority(rest []byte) bool {
	auth, ok := bytes.CutPrefix(rest, []byte("//"))
	if !ok {
		return false
	}
	if i := bytes.IndexAny(auth, "/?#"); i >= 0 {
		auth = auth[:i]
	}
	if i := bytes.LastIndexByte(auth, '@'); i >= 0 {
		if bytes.ContainsAny(auth[:i], "[]") {
			return true
		}
		auth = auth[i+1:]
	}
	if len(auth) > 0 && auth[0] == '[' {
		end := bytes.IndexByte(auth, ']')
		if end < 0 {
			return true
		}
		auth = auth[end+1:]
		return len(auth) > 0 && (auth[0] != ':' || digits(auth, 1, len(auth)-1) < 0 && len(auth) > 1)
	}
	if bytes.ContainsAny(auth, "[]") {
		return true
	}
	if i := bytes.IndexByte(auth, ':'); i >= 0 {
		port := auth[i+1:]
		return len(port) > 0 && digits(port, 0, len(port)) < 0
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
