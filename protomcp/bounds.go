package protomcp

import (
	"strconv"

	"github.com/ferry-mcp/ferry/schema"
)

// errorList collects the violations of one call: the first
// [schema.MaxErrors], as the root's validator lists them, and a count of
// the others, so that a request of a million bad items costs a bounded
// answer (and bounded memory while it is checked).
type errorList struct {
	errs    schema.Errors
	dropped int
}

// add records e, or counts it once the list is full.
func (l *errorList) add(e *schema.Error) {
	if len(l.errs) >= schema.MaxErrors {
		l.dropped++
		return
	}
	l.errs = append(l.errs, e)
}

// list returns the violations recorded, ending with one sentence saying
// how many were left out, if any were.
func (l *errorList) list() schema.Errors {
	if l.dropped == 0 {
		return l.errs
	}
	more := "and " + strconv.Itoa(l.dropped) + " more violations, not listed"
	if l.dropped == 1 {
		more = "and 1 more violation, not listed"
	}
	return append(l.errs, &schema.Error{Message: more})
}
