package entity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
)

// fieldError is a write refusal about one field: the model reads the
// sentence, and its path in the result's validationErrors.
type fieldError struct {
	code  ferry.RefusalCode
	path  string
	msg   string
	cause error
}

func (e *fieldError) Error() string { return string(e.code) + ": " + e.msg }
func (e *fieldError) Unwrap() error { return e.cause }

// invalidField refuses the value of one field.
func invalidField(path, format string, args ...any) error {
	return &fieldError{code: ferry.RefusalInvalid, path: path, msg: path + ": " + fmt.Sprintf(format, args...)}
}

// dbError turns a database error outside a write's constraints into a
// refusal where it has a meaning for the model (a timeout), and otherwise
// wraps it, to be masked and logged.
func (t *table) dbError(err error) error {
	if err == nil {
		return nil
	}
	var fe *fieldError
	var r *ferry.Refusal
	var de *dbErr
	if errors.As(err, &fe) || errors.As(err, &r) || errors.As(err, &de) {
		return err
	}
	switch classify(err) {
	case timeoutHit:
		return &ferry.Refusal{Code: ferry.RefusalUnavailable,
			Message: fmt.Sprintf("the database did not answer within %s; narrow the filter or try again later", t.timeout)}
	case badValue:
		return &fieldError{code: ferry.RefusalInvalid, cause: err,
			msg: "the database refuses a value of the call (malformed, too long or out of range)"}
	case busyHit:
		return &fieldError{code: ferry.RefusalUnavailable, cause: err,
			msg: "other writes held the records this call needs for too long, or collided with its own, and the call was undone; try again in a moment"}
	case connLimit:
		return &fieldError{code: ferry.RefusalUnavailable, cause: err,
			msg: "the database server refuses more connections (its connection limit is reached); try again later"}
	case unreachable:
		return &fieldError{code: ferry.RefusalUnavailable, cause: err, msg: unreachableMsg}
	}
	return &dbErr{entity: t.e.Name, err: err}
}

// unreachableMsg refuses a call whose database cannot be reached.
const unreachableMsg = "the database cannot be reached (it is down, or the network to it is cut); try again later"

// dbErr is a database failure with no meaning for the model: masked,
// and logged whole.
type dbErr struct {
	entity string
	err    error
}

func (e *dbErr) Error() string { return "entity: " + e.entity + ": " + e.err.Error() }
func (e *dbErr) Unwrap() error { return e.err }

// writeError turns a write's database error into the refusal it means:
// a unique, foreign key, not null or check violation, naming the field
// the message names, or the field the call gave that could cause it.
func (t *table) writeError(err error, op Op, vals map[string]any) error {
	v := classify(err)
	msg := err.Error()
	switch v {
	case uniqueViolation:
		f := t.guessField(msg, vals, func(f *Field) bool { return f == t.natural || f == t.key })
		if f == nil {
			return &fieldError{code: ferry.RefusalConflict, msg: article(t.e.Name) + " with these values exists", cause: err}
		}
		return &fieldError{code: ferry.RefusalConflict, path: f.Name, cause: err,
			msg: fmt.Sprintf("%s with %s %s exists", article(t.e.Name), f.Name, showValue(vals[f.Name]))}
	case foreignKeyViolation:
		if op == Delete {
			return &fieldError{code: ferry.RefusalConflict, cause: err,
				msg: "other records refer to this " + t.e.Name + "; delete or change them first"}
		}
		f := t.guessField(msg, vals, func(f *Field) bool { return f.References != nil })
		if f == nil {
			return &fieldError{code: ferry.RefusalInvalid, cause: err, msg: "a field refers to a record that does not exist"}
		}
		what := "record"
		if f.References != nil {
			what = f.References.Entity
		}
		return &fieldError{code: ferry.RefusalInvalid, path: f.Name, cause: err,
			msg: fmt.Sprintf("%s: %s refers to no %s", f.Name, showValue(vals[f.Name]), what)}
	case notNullViolation:
		f := t.guessField(msg, nil, func(*Field) bool { return true })
		if f == nil {
			return &fieldError{code: ferry.RefusalInvalid, cause: err, msg: "a required field is missing or null"}
		}
		return &fieldError{code: ferry.RefusalInvalid, path: f.Name, cause: err, msg: f.Name + ": must not be null"}
	case checkViolation:
		f := t.guessField(msg, vals, func(*Field) bool { return true })
		if f == nil {
			return &fieldError{code: ferry.RefusalInvalid, cause: err, msg: "the values break a check of the " + t.e.Plural + " table"}
		}
		return &fieldError{code: ferry.RefusalInvalid, path: f.Name, cause: err,
			msg: fmt.Sprintf("%s: %s breaks a check of the %s table", f.Name, showValue(vals[f.Name]), t.e.Plural)}
	case unreachable:
		return &fieldError{code: ferry.RefusalUnavailable, cause: err, msg: unreachableMsg +
			"; the connection may have dropped after the change was made, so read the record before making it again"}
	case badValue:
		if f, n := t.tooLong(msg, vals); f != nil {
			return &fieldError{code: ferry.RefusalInvalid, path: f.Name, cause: err,
				msg: fmt.Sprintf("%s: the column holds at most %d characters; got %d", f.Name, n, utf8.RuneCountInString(vals[f.Name].(string)))}
		}
		f := t.guessField(msg, vals, func(*Field) bool { return true })
		if f != nil {
			return &fieldError{code: ferry.RefusalInvalid, path: f.Name, cause: err,
				msg: f.Name + ": the database refuses " + showValue(vals[f.Name]) + " (too long, out of range or malformed)"}
		}
		return &fieldError{code: ferry.RefusalInvalid, cause: err, msg: "the database refuses a value (too long, out of range or malformed)"}
	}
	return t.dbError(err)
}

// guessField finds the field a constraint message names among those keep
// accepts, preferring those the call gave a value for (vals nil: any): a
// column named as a word first ("products.sku", `"sku"`), then as a part
// of a constraint's name ("products_cost_check"), then the one field
// given, if only one was (with several, naming one would be a guess that
// blames a good value).
func (t *table) guessField(msg string, vals map[string]any, keep func(*Field) bool) *Field {
	var given *Field
	n := 0
	for _, loose := range []bool{false, true} {
		for _, f := range t.e.Fields {
			if !keep(f) {
				continue
			}
			_, ok := vals[f.Name]
			if (vals == nil || ok) && mentions(msg, f.Column, loose) {
				return f
			}
			if ok && !loose {
				given, n = f, n+1
			}
		}
	}
	if n != 1 {
		return nil
	}
	return given
}

// tooLongFor reads the length of PostgreSQL's "value too long for type
// character varying(5)", which names no column.
var tooLongFor = regexp.MustCompile(`too long for type [a-z ]+\((\d+)\)`)

// tooLong finds the field a "value too long" message that names no column
// is about: the one text value given that is longer than the length the
// message names, if only one is. It returns the field and that length.
func (t *table) tooLong(msg string, vals map[string]any) (*Field, int) {
	m := tooLongFor.FindStringSubmatch(msg)
	if m == nil {
		return nil, 0
	}
	n, _ := strconv.Atoi(m[1])
	var found *Field
	for _, f := range t.e.Fields {
		if s, ok := vals[f.Name].(string); ok && f.Type == Text && utf8.RuneCountInString(s) > n {
			if found != nil {
				return nil, 0 // two could be at fault: naming one would be a guess
			}
			found = f
		}
	}
	return found, n
}

// showValue writes a value as JSON for a sentence, cut short when long.
func showValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "the value"
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

// refusalResult is the IsError result of a write refusal: the sentence,
// and in structured content the refusal's code, message and
// validationErrors with paths.
func refusalResult(err error) (*ferry.ToolResult, bool) {
	var fe *fieldError
	var r *ferry.Refusal
	var code, msg, path string
	switch {
	case errors.As(err, &fe):
		code, msg, path = string(fe.code), fe.msg, fe.path
	case errors.As(err, &r):
		code, msg = string(r.Code), r.Message
	default:
		return nil, false
	}
	type verr struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	}
	sc := struct {
		Error            string `json:"error"`
		Code             string `json:"code"`
		ValidationErrors []verr `json:"validationErrors"`
	}{Error: code + ": " + msg, Code: code, ValidationErrors: []verr{{Path: path, Message: msg}}}
	data, _ := json.Marshal(sc)
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(sc.Error)}, StructuredContent: json.RawMessage(data), IsError: true}, true
}

// article puts "a" or "an" before a snake_case noun.
func article(noun string) string {
	lower := strings.ToLower(noun)
	vowel := lower != "" && strings.IndexByte("aeiou", lower[0]) >= 0
	// By sound, for the common nouns whose first letter misleads: a user,
	// a unit, a URL, a euro, a one-off; an hour, an heir.
	for _, p := range []string{"uni", "us", "ut", "ur", "uu", "eu", "ew", "one"} {
		if strings.HasPrefix(lower, p) {
			vowel = false
		}
	}
	for _, p := range []string{"hour", "honest", "honor", "honour", "heir"} {
		if strings.HasPrefix(lower, p) {
			vowel = true
		}
	}
	if vowel {
		return "an " + noun
	}
	return "a " + noun
}

// explainConflict rewrites a unique conflict on a text value when the
// column's collation counts it equal to the different value a record
// holds (MySQL's and MariaDB's usual collations ignore case, accents and
// trailing spaces; SQLite's NOCASE ignores ASCII case): the refusal names
// the value held, which lookups, exact on every engine, find, instead of
// the value sent, which they do not. It looks only in the caller's scope,
// so a record another caller owns is not named, and only where the
// transaction outlives the failed statement (not on PostgreSQL, whose
// default collations are exact anyway). Any other error is returned as
// it is.
func (t *table) explainConflict(ctx context.Context, tx Querier, err error, vals map[string]any, scope any) error {
	var fe *fieldError
	if t.d.engine() == PostgreSQL || !errors.As(err, &fe) || fe.code != ferry.RefusalConflict {
		return err
	}
	f := t.e.Field(fe.path)
	sent, ok := vals[fe.path].(string)
	if f == nil || f.Type != Text || !ok {
		return err
	}
	q, w := &query{d: t.d}, &where{}
	if t.scoped(q, w, scope) != nil {
		return err
	}
	w.and(t.col(f) + " = " + q.bind(sent)) // the column's own collation, as its unique index has it
	q.add("SELECT ", t.col(f), " FROM ", t.from, w.String(), t.d.paging(q.bind(int64(1)), q.bind(int64(0))))
	var held string
	if tx.QueryRowContext(ctx, t.d.statement(q.sql.String(), t.timeout), q.args...).Scan(&held) != nil || held == sent {
		return err
	}
	return &fieldError{code: ferry.RefusalConflict, path: f.Name, cause: fe.cause,
		msg: fmt.Sprintf("%s with %s %s exists, which the column counts as equal to %s (its collation ignores case, accents or trailing spaces); lookups are exact, so name that record by %s",
			article(t.e.Name), f.Name, showValue(held), showValue(sent), showValue(held))}
}
