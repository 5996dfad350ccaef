package schema

import (
	"strconv"
	"strings"
)

// Error is one violation of a schema: where it is and a sentence a model can
// act on. Messages are lowercase, carry no final period, and say what was
// expected and what came ("must be at most 20 characters, got 23").
type Error struct {
	// Path locates the value in the arguments, in the form
	// "items[2].sku"; it is empty for the document itself. Property names
	// that are not plain identifiers are written as ["a b"].
	Path string
	// Message says what is wrong, without the path.
	Message string
}

// JoinPath returns the path of the property name inside the value at
// path, in the form of [Error.Path]: path.name, or path["a b"] for a name
// that is not a plain identifier (letters, digits, '_', '-', '$', '@' and
// any non-ASCII letter). An empty path is the document itself. Layers that
// check arguments themselves locate their errors with it, so that a model
// reads one form of path.
func JoinPath(path, name string) string {
	switch {
	case !isPlainName(name):
		return path + "[" + strconv.Quote(name) + "]"
	case path == "":
		return name
	}
	return path + "." + name
}

// isPlainName reports whether a property name can be written after a dot.
func isPlainName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c == '_' || c == '-' || c == '$' || c == '@':
		case '0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case c > 0x7f:
		default:
			return false
		}
	}
	return true
}

// Error returns "path: message", or just the message when Path is empty.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Errors lists every violation found in one document, in document order.
// A nil or empty Errors means the document is valid; because a nil Errors
// stored in an error interface is not a nil error, test len(errs) rather
// than comparing with nil after conversion.
type Errors []*Error

// Error returns the violations one per line, each written as [Error.Error]
// writes it. Lines are used rather than a separator because one message may
// itself contain "; ".
func (e Errors) Error() string {
	switch len(e) {
	case 0:
		return "no violations"
	case 1:
		return e[0].Error()
	}
	var b strings.Builder
	for i, err := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(err.Error())
	}
	return b.String()
}

// Unwrap returns the violations as errors, so that [errors.As] finds the
// first [*Error] in an Errors.
func (e Errors) Unwrap() []error {
	errs := make([]error, len(e))
	for i, err := range e {
		errs[i] = err
	}
	return errs
}
