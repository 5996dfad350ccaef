package protoschema

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
)

// Patterns of the string formats JSON Schema has no format name for, or
// whose format name clients ignore.
const (
	uuidPattern  = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`
	tuuidPattern = `^[0-9a-fA-F]{32}$`
	ulidPattern  = `^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`
)

// stringRules applies buf.validate string rules. Lengths count characters
// (code points), as JSON Schema does; byte lengths are bounded loosely and
// said in the description.
func stringRules(c *node, sr *validate.StringRules) error {
	if sr.HasConst() {
		c.Const = jsonValue(sr.GetConst())
	}
	if sr.HasLen() {
		c.MinLength, c.MaxLength = uptr(sr.GetLen()), uptr(sr.GetLen())
	}
	if sr.HasMinLen() {
		c.MinLength = uptr(sr.GetMinLen())
	}
	if sr.HasMaxLen() {
		c.MaxLength = uptr(sr.GetMaxLen())
	}
	// A character is one to four bytes of UTF-8.
	if sr.HasLenBytes() {
		c.note(fmt.Sprintf("Exactly %d bytes in UTF-8.", sr.GetLenBytes()))
		c.MinLength, c.MaxLength = uptr((sr.GetLenBytes()+3)/4), uptr(sr.GetLenBytes())
	}
	if sr.HasMinBytes() {
		c.note(fmt.Sprintf("At least %d bytes in UTF-8.", sr.GetMinBytes()))
		c.MinLength = uptr((sr.GetMinBytes() + 3) / 4)
	}
	if sr.HasMaxBytes() {
		c.note(fmt.Sprintf("At most %d bytes in UTF-8.", sr.GetMaxBytes()))
		c.MaxLength = uptr(sr.GetMaxBytes())
	}
	if sr.HasPattern() {
		if p := sr.GetPattern(); portablePattern(p) {
			c.addPattern(p)
		} else {
			c.note(fmt.Sprintf("Must match the RE2 pattern %s.", p))
		}
	}
	if sr.HasPrefix() {
		c.addPattern("^" + regexp.QuoteMeta(sr.GetPrefix()))
	}
	if sr.HasSuffix() {
		c.addPattern(regexp.QuoteMeta(sr.GetSuffix()) + "$")
	}
	if sr.HasContains() {
		c.addPattern(regexp.QuoteMeta(sr.GetContains()))
	}
	if sr.HasNotContains() {
		c.addNot(&node{Pattern: regexp.QuoteMeta(sr.GetNotContains())})
	}
	if in := sr.GetIn(); len(in) > 0 {
		c.Enum = anySlice(in)
	}
	if notIn := sr.GetNotIn(); len(notIn) > 0 {
		c.addNot(&node{Enum: anySlice(notIn)})
	}
	wellKnownString(c, sr)
	return nil
}

// wellKnownString applies the well-known string formats: a format name
// where JSON Schema has one, and a pattern where the form is simple
// enough to be exact (clients often ignore format).
func wellKnownString(c *node, sr *validate.StringRules) {
	switch {
	case sr.GetEmail():
		c.Format = "email"
	case sr.GetHostname():
		c.Format = "hostname"
	case sr.GetIp():
		c.AnyOf = []*node{{Format: "ipv4"}, {Format: "ipv6"}}
		c.note("An IPv4 or IPv6 address.")
	case sr.GetIpv4():
		c.Format = "ipv4"
	case sr.GetIpv6():
		c.Format = "ipv6"
	case sr.GetUri():
		c.Format = "uri"
	case sr.GetUriRef():
		c.Format = "uri-reference"
	case sr.GetAddress():
		c.AnyOf = []*node{{Format: "hostname"}, {Format: "ipv4"}, {Format: "ipv6"}}
		c.note("A hostname or an IP address.")
	case sr.GetUuid():
		c.Format = "uuid"
		c.addPattern(uuidPattern)
	case sr.GetTuuid():
		c.addPattern(tuuidPattern)
		c.note("A UUID as 32 hexadecimal digits without dashes.")
	case sr.GetUlid():
		c.addPattern(ulidPattern)
		c.note("A ULID.")
	case sr.GetIpWithPrefixlen():
		c.note("An IP address with a prefix length, such as 192.168.0.1/24.")
	case sr.GetIpv4WithPrefixlen():
		c.note("An IPv4 address with a prefix length, such as 192.168.0.1/24.")
	case sr.GetIpv6WithPrefixlen():
		c.note("An IPv6 address with a prefix length, such as 2001:db8::1/64.")
	case sr.GetIpPrefix():
		c.note("An IP prefix, such as 192.168.0.0/24.")
	case sr.GetIpv4Prefix():
		c.note("An IPv4 prefix, such as 192.168.0.0/24.")
	case sr.GetIpv6Prefix():
		c.note("An IPv6 prefix, such as 2001:db8::/64.")
	case sr.GetHostAndPort():
		c.note("A host and a port, such as example.com:8080 or [::1]:80.")
	case sr.GetProtobufFqn():
		c.note("A fully-qualified protobuf name, such as foo.v1.Bar.")
	case sr.GetProtobufDotFqn():
		c.note("A fully-qualified protobuf name with a leading dot, such as .foo.v1.Bar.")
	case sr.GetWellKnownRegex() == validate.KnownRegex_KNOWN_REGEX_HTTP_HEADER_NAME:
		c.note("An HTTP header name.")
	case sr.GetWellKnownRegex() == validate.KnownRegex_KNOWN_REGEX_HTTP_HEADER_VALUE:
		c.note("An HTTP header value.")
	}
}

// portablePattern reports whether an RE2 pattern means the same as an
// ECMA-262 one, as far as a cheap check can tell: it compiles, and it has
// none of the RE2 forms ECMA-262 lacks or reads differently.
func portablePattern(p string) bool {
	if _, err := regexp.Compile(p); err != nil {
		return false
	}
	for _, bad := range []string{`(?i`, `(?s`, `(?m`, `(?U`, `(?P<`, `\A`, `\z`, `\Q`, `[[:`, `\C`} {
		if strings.Contains(p, bad) {
			return false
		}
	}
	return true
}

// bytesRules applies buf.validate bytes rules to a base64 string: byte
// lengths become bounds on the base64 length (n bytes take 4n/3 characters
// unpadded, up to 4 per 3 padded) and are said in the description.
func bytesRules(c *node, br *validate.BytesRules) {
	minLen := func(n uint64) *uint64 { return uptr((4*n + 2) / 3) }
	maxLen := func(n uint64) *uint64 { return uptr(4 * ((n + 2) / 3)) }
	if br.HasConst() {
		c.Const = jsonValue(base64.StdEncoding.EncodeToString(br.GetConst()))
	}
	if br.HasLen() {
		c.MinLength, c.MaxLength = minLen(br.GetLen()), maxLen(br.GetLen())
		c.note(fmt.Sprintf("Exactly %s.", byteCount(br.GetLen())))
	}
	if br.HasMinLen() {
		c.MinLength = minLen(br.GetMinLen())
		c.note(fmt.Sprintf("At least %s.", byteCount(br.GetMinLen())))
	}
	if br.HasMaxLen() {
		c.MaxLength = maxLen(br.GetMaxLen())
		c.note(fmt.Sprintf("At most %s.", byteCount(br.GetMaxLen())))
	}
	if br.HasPattern() {
		c.note(fmt.Sprintf("Its bytes, read as UTF-8, must match the RE2 pattern %s.", br.GetPattern()))
	}
	if br.HasPrefix() {
		c.note(fmt.Sprintf("Starts with the bytes %s (base64).", base64.StdEncoding.EncodeToString(br.GetPrefix())))
	}
	if br.HasSuffix() {
		c.note(fmt.Sprintf("Ends with the bytes %s (base64).", base64.StdEncoding.EncodeToString(br.GetSuffix())))
	}
	if br.HasContains() {
		c.note(fmt.Sprintf("Contains the bytes %s (base64).", base64.StdEncoding.EncodeToString(br.GetContains())))
	}
	if in := br.GetIn(); len(in) > 0 {
		c.Enum = base64s(in)
	}
	if notIn := br.GetNotIn(); len(notIn) > 0 {
		c.addNot(&node{Enum: base64s(notIn)})
	}
	switch {
	case br.GetIp():
		c.note("An IP address: 4 or 16 bytes.")
		c.MinLength, c.MaxLength = minLen(4), maxLen(16)
	case br.GetIpv4():
		c.note("An IPv4 address: 4 bytes.")
		c.MinLength, c.MaxLength = minLen(4), maxLen(4)
	case br.GetIpv6(), br.GetUuid():
		c.note("16 bytes.")
		c.MinLength, c.MaxLength = minLen(16), maxLen(16)
	}
}

// byteCount writes n bytes in words.
func byteCount(n uint64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatUint(n, 10) + " bytes"
}

func base64s(in [][]byte) []any {
	out := make([]any, len(in))
	for i, b := range in {
		out[i] = base64.StdEncoding.EncodeToString(b)
	}
	return out
}

func anySlice[T any](in []T) []any {
	out := make([]any, len(in))
	for i, v := range in {
		out[i] = v
	}
	return out
}
