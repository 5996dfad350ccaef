// Package naming turns protobuf method names into MCP tool names and
// titles. The rules of names themselves are the root's, in package
// toolname, which every part of Ferry shares.
package naming

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/toolname"
)

// Words splits an identifier such as "GetHTTPStatus" or "get_v2_forecast"
// into its words: a new word starts at an upper-case letter that follows a
// lower-case letter or digit, at the last upper-case letter of a run that
// a lower-case letter follows ("HTTPStatus" is "HTTP", "Status"), and after
// an underscore. Digits stay with the word before them.
func Words(s string) []string {
	var words []string
	rs := []rune(s)
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, string(rs[start:end]))
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.':
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r):
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
				start = i
			}
		}
	}
	flush(len(rs))
	return words
}

// Snake returns a protobuf method name as a tool name: each of its
// underscore-separated parts in the root's snake case
// ([toolname.SnakeCase]: "GetHTTPStatus" is "get_http_status"), the
// parts joined by single underscores, so that "__Odd__Name" is "odd_name".
func Snake(s string) string {
	var parts []string
	for _, p := range strings.Split(s, "_") {
		if p != "" {
			parts = append(parts, toolname.SnakeCase(p))
		}
	}
	return strings.Join(parts, "_")
}

// Title returns s as a title in sentence case: its [Words] separated by
// spaces, the first capitalised, the others in lower case except
// acronyms ("GetHTTPStatus" is "Get HTTP status").
func Title(s string) string {
	words := Words(s)
	for i, w := range words {
		if !acronym(w) {
			w = strings.ToLower(w)
		}
		if i == 0 {
			r, n := utf8.DecodeRuneInString(w)
			w = string(unicode.ToUpper(r)) + w[n:]
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}

// acronym reports whether w has two or more letters, all upper case.
func acronym(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLower(r) {
			return false
		}
		if unicode.IsLetter(r) {
			letters++
		}
	}
	return letters > 1
}

// CheckPrefix returns an error if prefix has a character a tool name may
// not hold ([toolname.Check]); an empty prefix is valid.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := toolname.Check(prefix); err != nil {
		return fmt.Errorf("prefix %q: %w", prefix, err)
	}
	return nil
}
