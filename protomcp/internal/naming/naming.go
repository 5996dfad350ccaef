// Package naming turns protobuf method names into MCP tool names and
// titles, and checks names against the MCP rules.
package naming

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxName is the longest tool name the MCP specification allows.
const MaxName = 128

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

// Snake returns s in snake_case: its [Words] in lower case joined by '_'
// ("GetHTTPStatus" is "get_http_status").
func Snake(s string) string {
	words := Words(s)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, "_")
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

// CheckName returns an error if name is not a valid MCP tool name: 1 to
// [MaxName] characters of A-Z, a-z, 0-9, '_', '-' and '.'.
func CheckName(name string) error {
	if name == "" {
		return errors.New("is empty")
	}
	if len(name) > MaxName {
		return fmt.Errorf("is %d characters; at most %d are allowed", len(name), MaxName)
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !nameChar(r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(name[i:])
		return fmt.Errorf("has %q at byte %d; only A-Z, a-z, 0-9, '_', '-' and '.' are allowed", r, i)
	}
	return nil
}

// CheckPrefix returns an error if prefix has a character [CheckName]
// refuses; an empty prefix is valid.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := CheckName(prefix); err != nil {
		return fmt.Errorf("prefix %q %w", prefix, err)
	}
	return nil
}

func nameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
}
