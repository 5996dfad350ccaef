package ferry

import "fmt"

// Refusal is a domain "no" a tool returns as an error: the model reads it
// as an IsError result "code: message" and may act on it. Use
// [errors.As] to find one.
type Refusal struct {
	Code    RefusalCode
	Message string
}

// Error returns "code: message".
func (r *Refusal) Error() string { return string(r.Code) + ": " + r.Message }

// Refuse returns a refusal with any code.
func Refuse(code RefusalCode, msg string) error { return &Refusal{Code: code, Message: msg} }

// Refusef is [Refuse] with a formatted message.
func Refusef(code RefusalCode, format string, args ...any) error {
	return &Refusal{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound refuses because what the call names does not exist.
func NotFound(msg string) error { return Refuse(RefusalNotFound, msg) }

// Conflict refuses because the call clashes with the current state.
func Conflict(msg string) error { return Refuse(RefusalConflict, msg) }

// Forbidden refuses because the caller may not do this.
func Forbidden(msg string) error { return Refuse(RefusalForbidden, msg) }

// Invalid refuses because the arguments, though well formed, make no sense
// together.
func Invalid(msg string) error { return Refuse(RefusalInvalid, msg) }

// Unavailable refuses because something the tool needs is down; the call
// may succeed later.
func Unavailable(msg string) error { return Refuse(RefusalUnavailable, msg) }
