package filter

import "strings"

// Error is a refusal of a filter the model can act on: it names the
// problem, hints at the CEL form of what was probably meant, and lists the
// filterable fields with their types. It never holds more than a short
// excerpt of the expression.
type Error struct {
	// Problem says what is wrong, such as `unknown field "Cost"`.
	Problem string
	// Hint says how to write it in CEL, such as `did you mean "cost"?`,
	// or is empty.
	Hint string
	// Column is the 1-based position in the expression, in characters,
	// of the problem (an operator's or a call's own token), or 0.
	Column int
	// Fields lists the filterable fields and their types, as
	// "cost (number), name (text or null)".
	Fields string
}

// Error returns the refusal as one sentence.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("invalid filter: ")
	b.WriteString(e.Problem)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	b.WriteString("; filterable fields: ")
	if e.Fields == "" {
		b.WriteString("none")
	} else {
		b.WriteString(e.Fields)
	}
	return b.String()
}
