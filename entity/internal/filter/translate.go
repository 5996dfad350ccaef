package filter

import "errors"

// Translate checks expr against the environment's fields and returns an
// SQL boolean condition for engine that keeps exactly the rows for which
// CEL evaluates expr to true.
//
// column(i) returns the quoted, qualified column of the environment's
// field i: the caller's own model, so nothing of the expression's text
// reaches the SQL. bind(v, t) appends a parameter and returns its
// placeholder; v is a string, int64, float64, bool or time.Time (in UTC:
// a Timestamp, or a Date at midnight), and t is the type to encode it as.
// A refusal is an [*Error].
func (e *Env) Translate(expr string, engine Engine, column func(i int) string, bind func(v any, t Type) string) (string, error) {
	return "", errors.New("filter: not implemented yet")
}
