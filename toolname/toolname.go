// Package toolname holds the rules for tool names: which names the protocol
// accepts, and how a Go identifier becomes one. Every part of Ferry that
// names tools (AddMethods, ferry gen, ferry lint, entity, protomcp) uses it,
// so that they agree.
package toolname

import (
	"fmt"
	"strings"
	"unicode"
)

// MaxLen is the longest tool name the protocol (2025-11-25) allows, in
// bytes; every allowed character is one byte.
const MaxLen = 128

// Check returns what is wrong with name under the protocol's naming rules
// (1 to 128 characters of A-Z a-z 0-9 _ - .), or nil. The error is a
// phrase that follows the tool's name: "name has ' '; use only ...".
func Check(name string) error {
	if name == "" {
		return fmt.Errorf("has no name")
	}
	if len(name) > MaxLen {
		return fmt.Errorf("name is %d characters; at most %d are allowed", len(name), MaxLen)
	}
	for _, c := range name {
		if !allowed(c) {
			return fmt.Errorf("name has %q; use only A-Z, a-z, 0-9, '_', '-' and '.'", c)
		}
	}
	return nil
}

func allowed(c rune) bool {
	return c == '_' || c == '-' || c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// SnakeCase turns a Go identifier into a tool name: FindBooks becomes
// find_books, GetHTTPStatus get_http_status and LendBook2 lend_book2. An
// initialism keeps together (URLFor becomes url_for).
func SnakeCase(name string) string {
	runes := []rune(name)
	var sb strings.Builder
	for i, r := range runes {
		if !unicode.IsUpper(r) {
			sb.WriteRune(r)
			continue
		}
		prevLower := i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]))
		endsInitialism := i > 0 && i+1 < len(runes) && unicode.IsLower(runes[i+1]) && unicode.IsUpper(runes[i-1])
		if prevLower || endsInitialism {
			sb.WriteByte('_')
		}
		sb.WriteRune(unicode.ToLower(r))
	}
	return sb.String()
}
