// Package filter translates a CEL filter expression, checked against an
// entity's filterable fields, into a parameterized SQL condition with the
// meaning CEL gives it on every engine, NULLs included.
package filter
