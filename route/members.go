package route

import (
	"encoding/json"
	"errors"
)

// errArguments is the error of arguments that are not a JSON object; the
// server hands tools only objects, so it is not expected.
var errArguments = errors.New("route: the arguments are not a JSON object")

// members reads the members of a JSON object in order, without decoding
// their values: the arguments of a call, split between the path, the query
// string, headers and the body. The zero value is not ready: see
// [newMembers].
type members struct {
	data []byte
	i    int
	done bool
}

// newMembers starts reading the object data; empty data and null read as
// an empty object.
func newMembers(data []byte) (members, error) {
	m := members{data: data}
	m.space()
	if m.i == len(data) || string(data[m.i:]) == "null" {
		m.done = true
		return m, nil
	}
	if data[m.i] != '{' {
		return m, errArguments
	}
	m.i++
	m.space()
	if m.i < len(data) && data[m.i] == '}' {
		m.done = true
	}
	return m, nil
}

// next returns the next member: its key as written (quotes included) and
// its value. ok is false at the end; err is set for data that is not JSON.
func (m *members) next() (key, val []byte, ok bool, err error) {
	if m.done {
		return nil, nil, false, nil
	}
	m.space()
	start := m.i
	end, _, err := scanString(m.data, start)
	if err != nil {
		return nil, nil, false, err
	}
	key = m.data[start:end]
	m.i = end
	m.space()
	if m.i >= len(m.data) || m.data[m.i] != ':' {
		return nil, nil, false, errArguments
	}
	m.i++
	m.space()
	vs := m.i
	ve, err := skipValue(m.data, vs)
	if err != nil {
		return nil, nil, false, err
	}
	val = m.data[vs:ve]
	m.i = ve
	m.space()
	switch {
	case m.i < len(m.data) && m.data[m.i] == ',':
		m.i++
	case m.i < len(m.data) && m.data[m.i] == '}':
		m.done = true
	default:
		return nil, nil, false, errArguments
	}
	return key, val, true, nil
}

func (m *members) space() {
	for m.i < len(m.data) && isSpace(m.data[m.i]) {
		m.i++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanString returns the end of the string starting at data[i] (just past
// its closing quote), and whether it holds escapes.
func scanString(data []byte, i int) (end int, escaped bool, err error) {
	if i >= len(data) || data[i] != '"' {
		return 0, false, errArguments
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped, nil
		}
	}
	return 0, false, errArguments
}

// skipValue returns the end of the JSON value starting at data[i].
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, errArguments
	}
	switch data[i] {
	case '"':
		end, _, err := scanString(data, i)
		return end, err
	case '{', '[':
		return skipNested(data, i)
	}
	j := i
	for j < len(data) && !isSpace(data[j]) && data[j] != ',' && data[j] != '}' && data[j] != ']' {
		j++
	}
	if j == i {
		return 0, errArguments
	}
	return j, nil
}

// skipNested returns the end of the object or array starting at data[i].
func skipNested(data []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(data); j++ {
		switch data[j] {
		case '"':
			end, _, err := scanString(data, j)
			if err != nil {
				return 0, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, errArguments
}

// unquote returns the text of the JSON string s (quotes included), and
// whether s is one. A string without escapes costs nothing.
func unquote(s []byte) ([]byte, bool) {
	end, escaped, err := scanString(s, 0)
	if err != nil || end != len(s) {
		return nil, false
	}
	if !escaped {
		return s[1 : len(s)-1], true
	}
	var v string
	if json.Unmarshal(s, &v) != nil {
		return nil, false
	}
	return []byte(v), true
}

// items calls fn for each item of the JSON array s, stopping at the first
// error.
func items(s []byte, fn func(item []byte) error) error {
	i := 1
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == ']' {
			return nil
		}
		end, err := skipValue(s, i)
		if err != nil {
			return err
		}
		if err := fn(s[i:end]); err != nil {
			return err
		}
		i = end
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == ',' {
			i++
			continue
		}
		if i < len(s) && s[i] == ']' {
			return nil
		}
		return errArguments
	}
}
