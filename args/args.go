package args

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/schema"
)

// Args holds the arguments of one tool call: the members of the arguments
// object, not yet decoded. Build it with [Parse]. The zero value holds no
// arguments. An Args is safe for concurrent reads.
type Args struct {
	members map[string]json.RawMessage
}

// The readers check each value with the schema package's validator under
// [schema.Unambiguous], so they accept and refuse exactly what a typed
// tool's input schema would, in the same sentences.
var (
	objectValidator  = mustCompile(&schema.Schema{Type: "object"})
	textValidator    = mustCompile(&schema.Schema{Type: "string"})
	dateValidator    = mustCompile(&schema.Schema{Type: "string", Format: "date"})
	numberValidator  = mustCompile(&schema.Schema{Type: "number"})
	integerValidator = mustCompile(&schema.Schema{Type: "integer"})
	flagValidator    = mustCompile(&schema.Schema{Type: "boolean"})
	listValidator    = mustCompile(&schema.Schema{Type: "array", Items: &schema.Schema{Type: "string"}})
)

func mustCompile(s *schema.Schema) *schema.Validator {
	v, err := schema.Compile(s, schema.Unambiguous)
	if err != nil {
		panic("args: " + err.Error()) //nolint:forbidigo // the schemas above are constant: a failure is a bug found at init
	}
	return v
}

// Parse reads the raw arguments of a tool call. Absent arguments (empty or
// null) give an empty Args. Arguments that are not a JSON object give a
// [*schema.Error] at the root: "arguments are not valid JSON: ..." or
// "expected an object, got [1]".
func Parse(raw json.RawMessage) (Args, error) {
	out, errs := objectValidator.Validate(raw)
	if len(errs) > 0 {
		return Args{}, errs[0]
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(out, &members); err != nil {
		return Args{}, &schema.Error{Message: "arguments are not valid JSON: " + err.Error()}
	}
	return Args{members: members}, nil
}

// Has reports whether the argument name is present and not null.
func (a Args) Has(name string) bool {
	raw, ok := a.members[name]
	return ok && string(raw) != "null"
}

// Only refuses every argument whose name is not in names, each by name, as
// a closed input schema does: `colour: is not allowed: unknown property
// "colour"; known properties: color, size`. It returns nil when there are
// none, a [*schema.Error] for one and [schema.Errors] for several.
func Only(a Args, names ...string) error {
	var unknown []string
	for name := range a.members {
		if !slices.Contains(names, name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	var errs schema.Errors
	for _, name := range unknown {
		msg := "is not allowed: unknown property " + strconv.Quote(name)
		if len(names) == 0 {
			msg += "; this tool takes no arguments"
		} else {
			msg += "; known properties: " + strings.Join(names, ", ")
		}
		errs = append(errs, &schema.Error{Path: name, Message: msg})
	}
	return errorOf(errs)
}

// RequiredText returns the string argument name. It fails with "is
// required" when the argument is absent or null, and with "expected a
// string, got 12" when it is not a string.
func RequiredText(a Args, name string) (string, error) {
	s, ok, err := text(a, name)
	return need(s, ok, err, name)
}

// Text returns the string argument name, or def when it is absent or null.
// It fails when the argument is not a string.
func Text(a Args, name, def string) (string, error) {
	s, ok, err := text(a, name)
	if err == nil && !ok {
		s = def
	}
	return s, err
}

func text(a Args, name string) (string, bool, error) {
	out, ok, err := read(a, name, textValidator)
	if !ok || err != nil {
		return "", ok, err
	}
	var s string
	err = json.Unmarshal(out, &s)
	return s, true, err
}

// Date returns the date argument name, written yyyy-MM-dd, as midnight UTC.
// It fails with "is required" when the argument is absent or null, and with
// `expected a date written yyyy-MM-dd, got "March 2026"` for anything else.
func Date(a Args, name string) (time.Time, error) {
	t, ok, err := OptionalDate(a, name)
	return need(t, ok, err, name)
}

// OptionalDate is like [Date], but reports an absent or null argument with
// ok false instead of an error.
func OptionalDate(a Args, name string) (t time.Time, ok bool, err error) {
	s, ok, err := read(a, name, dateValidator)
	if !ok || err != nil {
		return time.Time{}, ok, err
	}
	var text string
	if err := json.Unmarshal(s, &text); err != nil {
		return time.Time{}, true, err
	}
	t, err = time.Parse(time.DateOnly, text)
	return t, true, err
}

// Number returns the number argument name. Under the coercion policy of
// [schema.Unambiguous] it also accepts "12.5", "£1,234.00" and
// "1,234.50". It fails with "is required" when the argument is absent or
// null, and with `expected a number, got "ten"` for anything else.
func Number(a Args, name string) (float64, error) {
	f, ok, err := OptionalNumber(a, name)
	return need(f, ok, err, name)
}

// OptionalNumber is like [Number], but reports an absent or null argument
// with ok false instead of an error.
func OptionalNumber(a Args, name string) (f float64, ok bool, err error) {
	out, ok, err := read(a, name, numberValidator)
	if !ok || err != nil {
		return 0, ok, err
	}
	f, err = strconv.ParseFloat(string(out), 64)
	if err != nil {
		return 0, true, &schema.Error{Path: name, Message: "must be a number between -1.8e308 and 1.8e308, got " + string(out)}
	}
	return f, true, nil
}

// Integer returns the integer argument name. It accepts a whole number
// written as a number or, as [schema.Unambiguous] allows, a string ("12",
// "1e3", "$1,200"). It fails with "is required" when the argument is absent
// or null, "expected an integer, got 1.5" for anything else, and a range
// sentence for a whole number beyond int64.
func Integer(a Args, name string) (int64, error) {
	n, ok, err := OptionalInteger(a, name)
	return need(n, ok, err, name)
}

// OptionalInteger is like [Integer], but reports an absent or null argument
// with ok false instead of an error.
func OptionalInteger(a Args, name string) (n int64, ok bool, err error) {
	out, ok, err := read(a, name, integerValidator)
	if !ok || err != nil {
		return 0, ok, err
	}
	n, perr := strconv.ParseInt(string(out), 10, 64)
	if perr != nil {
		return 0, true, &schema.Error{Path: name, Message: "must be between -9223372036854775808 and 9223372036854775807, got " + string(out)}
	}
	return n, true, nil
}

// Flag returns the boolean argument name; an absent or null flag is false.
// It accepts true and false, and the strings "true" and "false". It fails
// with `expected a boolean, got "yes"` for anything else.
func Flag(a Args, name string) (bool, error) {
	out, ok, err := read(a, name, flagValidator)
	if !ok || err != nil {
		return false, err
	}
	return string(out) == "true", nil
}

// List returns the list-of-strings argument name; an absent or null list
// is nil. It accepts an array of strings, a string holding a JSON array
// ("[\"a, b\"]" is ["a, b"], never split at its commas), and a string of
// comma-separated items ("a, b" is ["a", "b"]). It fails with "expected an array, got 12"
// for anything else, and names each item that is not a string ("tags[1]:
// expected a string, got 2"), returning [schema.Errors] when there are
// several.
func List(a Args, name string) ([]string, error) {
	out, ok, err := read(a, name, listValidator)
	if !ok || err != nil {
		return nil, err
	}
	var list []string
	err = json.Unmarshal(out, &list)
	return list, err
}

// read validates the argument name with v and returns the value to decode,
// or ok false when the argument is absent or null.
func read(a Args, name string, v *schema.Validator) (out []byte, ok bool, err error) {
	raw, present := a.members[name]
	if !present || string(raw) == "null" {
		return nil, false, nil
	}
	out, errs := v.Validate(raw)
	if len(errs) > 0 {
		placed := make(schema.Errors, len(errs))
		for i, e := range errs {
			placed[i] = &schema.Error{Path: joinPath(name, e.Path), Message: e.Message}
		}
		return nil, true, errorOf(placed)
	}
	return out, true, nil
}

// joinPath puts a path found inside an argument under the argument's name.
func joinPath(name, path string) string {
	switch {
	case path == "":
		return name
	case path[0] == '[':
		return name + path
	}
	return name + "." + path
}

// errorOf returns nil, the one error, or all of them.
func errorOf(errs schema.Errors) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errs
}

// required returns the error for an absent argument.
func required(name string) error {
	return &schema.Error{Path: name, Message: "is required"}
}

// need returns v and err, or the "is required" error of the argument name
// when it is absent (ok false) without an error.
func need[T any](v T, ok bool, err error, name string) (T, error) {
	if err == nil && !ok {
		err = required(name)
	}
	return v, err
}
