package route

import (
	"bytes"
	"errors"

	"github.com/ferry-mcp/ferry/schema"
)

// scalar returns the text of a JSON string, number or boolean as it
// travels in a URL or a header: a string's text, a number exactly as the
// JSON wrote it (no 1e+06 for 1000000), true or false. ok is false for
// null, an object or an array.
func scalar(v []byte) (text []byte, ok bool) {
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		return unquote(v)
	case '{', '[', 'n':
		return nil, false
	}
	return v, true
}

// appendWildcard appends the value v of a wildcard to the escaped path esc
// and the plain path raw: one segment, or several for a {name...}
// wildcard, each escaped as [net/url.PathEscape] does. changed says
// escaping changed the value; msg says why v cannot fill the wildcard.
func appendWildcard(esc, raw []byte, multi bool, v []byte) (_, _ []byte, changed bool, msg string) {
	if v == nil || string(v) == "null" {
		return esc, raw, false, "is required to fill the route's path"
	}
	text, ok := scalar(v)
	if !ok {
		return esc, raw, false, "must be a string, a number or a boolean to fill the route's path"
	}
	if len(text) == 0 {
		return esc, raw, false, "must not be empty: it fills a segment of the route's path"
	}
	if !multi {
		if string(text) == "." || string(text) == ".." {
			return esc, raw, false, "must not be \".\" or \"..\": it fills a segment of the route's path"
		}
		if hasDotSegment(text) {
			// The slash travels escaped, but the handler's r.URL.Path is
			// decoded: a middleware that cleans it would climb.
			return esc, raw, false, "must not hold \".\" or \"..\" between slashes: it fills a segment of the route's path"
		}
		n := len(esc)
		esc = appendEscaped(esc, text, false)
		return esc, append(raw, text...), len(esc)-n != len(text), ""
	}
	start := len(esc)
	for seg := range bytes.SplitSeq(text, []byte{'/'}) {
		if len(seg) == 0 || string(seg) == "." || string(seg) == ".." {
			return esc, raw, false, "must be segments separated by \"/\", none of them empty, \".\" or \"..\""
		}
		if len(esc) > start {
			esc = append(esc, '/')
		}
		esc = appendEscaped(esc, seg, false)
	}
	return esc, append(raw, text...), len(esc)-start != len(text), ""
}

// hasDotSegment reports whether text, split at its slashes, has a "." or
// ".." part.
func hasDotSegment(text []byte) bool {
	if bytes.IndexByte(text, '/') < 0 {
		return false
	}
	for seg := range bytes.SplitSeq(text, []byte{'/'}) {
		if string(seg) == "." || string(seg) == ".." {
			return true
		}
	}
	return false
}

// appendQuery appends the argument name with value v to the query q: an
// array repeats the name, null is left out. An object, or an array holding
// one, is listed in errs.
func appendQuery[S ~string | ~[]byte](q []byte, name S, v []byte, errs schema.Errors) ([]byte, schema.Errors) {
	if len(v) == 0 || string(v) == "null" {
		return q, errs
	}
	if v[0] == '[' {
		err := items(v, func(item []byte) error {
			var err error
			q, err = appendPair(q, name, item)
			return err
		})
		if err != nil {
			errs = append(errs, &schema.Error{Path: string(name), Message: "must be a list of strings, numbers or booleans: it goes in the query string"})
		}
		return q, errs
	}
	q, err := appendPair(q, name, v)
	if err != nil {
		errs = append(errs, &schema.Error{Path: string(name), Message: "must not be an object: it goes in the query string"})
	}
	return q, errs
}

var errNotScalar = errors.New("route: not a scalar")

// appendPair appends name=v to the query q.
func appendPair[S ~string | ~[]byte](q []byte, name S, v []byte) ([]byte, error) {
	if string(v) == "null" {
		return q, nil
	}
	text, ok := scalar(v)
	if !ok {
		return q, errNotScalar
	}
	if len(q) > 0 {
		q = append(q, '&')
	}
	q = append(appendEscaped(q, name, true), '=')
	return appendEscaped(q, text, true), nil
}

// headerText returns the text of a header's value v.
func headerText(v []byte) (string, error) {
	text, ok := scalar(v)
	if !ok {
		return "", errors.New("must be a string, a number or a boolean: it goes in a header")
	}
	if bytes.ContainsFunc(text, isHeaderControl) {
		return "", errors.New("must not hold control characters: it goes in a header")
	}
	return string(text), nil
}
