package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// A client's configuration file is edited in place: ferry install finds
// the entry it writes by parsing the file into the spans of its values,
// and replaces or inserts only that entry's text. Every other byte of the
// file (the other servers, their order, the indentation, comments where
// the client allows them) is left as it was. The parser reads JSON and
// the JSON with comments and trailing commas that VS Code's files may
// hold.

// maxConfigDepth bounds how deeply a configuration file may nest, so that
// a hostile file cannot exhaust the stack.
const maxConfigDepth = 200

// jvalue is one JSON value of a parsed file: its kind ('{', '[', '"' or
// 'v' for a number, true, false or null) and its byte span [start, end).
type jvalue struct {
	kind       byte
	start, end int
	members    []jmember // an object's
	elems      []*jvalue // an array's
}

// jmember is one member of an object: its decoded key, where the key's
// quote starts, and its value.
type jmember struct {
	key      string
	keyStart int
	val      *jvalue
}

// member returns the member of an object named key (the last, as a JSON
// decoder would take it), or nil.
func (v *jvalue) member(key string) *jmember {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return &v.members[i]
		}
	}
	return nil
}

// jparser parses a JSON (or JSON with comments) document into jvalues.
type jparser struct {
	b   []byte
	pos int
}

// parseConfig parses a whole document, which must be one object.
func parseConfig(b []byte) (*jvalue, error) {
	p := &jparser{b: b}
	p.space()
	if p.pos == len(b) {
		return nil, errors.New("the file is empty")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(b) {
		return nil, p.errorf("text after the end of the top-level value")
	}
	if v.kind != '{' {
		return nil, errors.New("the file does not hold a JSON object")
	}
	return v, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.b[:p.pos], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// space skips white space and comments.
func (p *jparser) space() {
	for p.pos < len(p.b) {
		switch c := p.b[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.b) && p.b[p.pos+1] == '/':
			for p.pos < len(p.b) && p.b[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.b) && p.b[p.pos+1] == '*':
			end := bytes.Index(p.b[p.pos+2:], []byte("*/"))
			if end < 0 {
				p.pos = len(p.b) // an unclosed comment: the caller finds nothing after it
				return
			}
			p.pos += 2 + end + 2
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*jvalue, error) {
	if depth > maxConfigDepth {
		return nil, p.errorf("nested more than %d levels deep", maxConfigDepth)
	}
	if p.pos >= len(p.b) {
		return nil, p.errorf("unexpected end of the file")
	}
	start := p.pos
	switch c := p.b[p.pos]; c {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &jvalue{kind: '"', start: start, end: p.pos}, nil
	default:
		for p.pos < len(p.b) && strings.IndexByte("+-.0123456789eEtruefalsn", p.b[p.pos]) >= 0 {
			p.pos++
		}
		if !json.Valid(p.b[start:p.pos]) {
			p.pos = start
			return nil, p.errorf("not a JSON value")
		}
		return &jvalue{kind: 'v', start: start, end: p.pos}, nil
	}
}

// str reads a string and returns it decoded.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++ // the opening quote
	for p.pos < len(p.b) {
		switch p.b[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.b[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.errorf("a string that is not valid JSON")
			}
			return s, nil
		case '\n':
			p.pos = start
			return "", p.errorf("a string with a line break")
		}
		p.pos++
	}
	p.pos = start
	return "", p.errorf("a string that does not end")
}

func (p *jparser) object(depth int) (*jvalue, error) {
	v := &jvalue{kind: '{', start: p.pos}
	p.pos++
	for {
		p.space()
		if p.pos >= len(p.b) {
			return nil, p.errorf("an object that does not end")
		}
		if p.b[p.pos] == '}' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if len(v.members) > 0 {
			if p.b[p.pos] != ',' {
				return nil, p.errorf("expected ',' or '}' in an object")
			}
			p.pos++
			p.space()
			if p.pos < len(p.b) && p.b[p.pos] == '}' { // a trailing comma
				continue
			}
		}
		if p.pos >= len(p.b) || p.b[p.pos] != '"' {
			return nil, p.errorf("expected a member's name in quotes")
		}
		keyStart := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.b) || p.b[p.pos] != ':' {
			return nil, p.errorf("expected ':' after %q", key)
		}
		p.pos++
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, jmember{key: key, keyStart: keyStart, val: val})
	}
}

func (p *jparser) array(depth int) (*jvalue, error) {
	v := &jvalue{kind: '[', start: p.pos}
	p.pos++
	for {
		p.space()
		if p.pos >= len(p.b) {
			return nil, p.errorf("an array that does not end")
		}
		if p.b[p.pos] == ']' {
			p.pos++
			v.end = p.pos
			return v, nil
		}
		if len(v.elems) > 0 {
			if p.b[p.pos] != ',' {
				return nil, p.errorf("expected ',' or ']' in an array")
			}
			p.pos++
			p.space()
			if p.pos < len(p.b) && p.b[p.pos] == ']' {
				continue
			}
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
	}
}

// layout is how a file is indented: pretty (one member a line, unit per
// level) or compact (all on one line).
type layout struct {
	pretty bool
	unit   string
}

// layoutOf guesses the file's layout from its top-level object.
func layoutOf(b []byte, top *jvalue) layout {
	if len(top.members) == 0 {
		if bytes.IndexByte(b[top.start:top.end], '\n') >= 0 {
			return layout{pretty: true, unit: "  "}
		}
		return layout{pretty: true, unit: "  "} // an empty file's object: write it readable
	}
	first := top.members[0].keyStart
	if bytes.IndexByte(b[top.start:first], '\n') < 0 {
		return layout{}
	}
	ind := lineIndent(b, first)
	base := lineIndent(b, top.start)
	unit, ok := strings.CutPrefix(ind, base)
	if !ok || unit == "" {
		unit = "  "
	}
	return layout{pretty: true, unit: unit}
}

// lineIndent returns the white space that starts the line holding pos.
func lineIndent(b []byte, pos int) string {
	start := bytes.LastIndexByte(b[:pos], '\n') + 1
	end := start
	for end < len(b) && (b[end] == ' ' || b[end] == '\t') {
		end++
	}
	return string(b[start:end])
}

// edit is one replacement of the span [start, end) of a file by text.
type edit struct {
	start, end int
	text       string
}

// apply makes edits, which must not overlap, on b.
func apply(b []byte, edits []edit) []byte {
	// Applied from the end, so earlier spans keep their offsets.
	slices.SortStableFunc(edits, func(a, b edit) int { return cmp.Compare(b.start, a.start) })
	out := append([]byte(nil), b...)
	for _, e := range edits {
		out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// setMember returns the edit that sets the member key of the object obj
// (in the file b) to val: its value replaced where the member exists,
// else a member added after the last.
func setMember(b []byte, obj *jvalue, key string, val any, l layout) edit {
	ind := lineIndent(b, obj.start)
	if m := obj.member(key); m != nil {
		return edit{m.val.start, m.val.end, renderJSON(val, lineIndent(b, m.keyStart), l)}
	}
	return insertItem(b, obj.start, obj.end, len(obj.members) > 0, lastEnd(obj), ind, quote(key)+sep(l)+"%s", val, l)
}

// appendElem returns the edit that adds val as the last element of the
// array arr.
func appendElem(b []byte, arr *jvalue, val any, l layout) edit {
	last := -1
	if n := len(arr.elems); n > 0 {
		last = arr.elems[n-1].end
	}
	return insertItem(b, arr.start, arr.end, len(arr.elems) > 0, last, lineIndent(b, arr.start), "%s", val, l)
}

// lastEnd is where an object's last member's value ends, or -1.
func lastEnd(obj *jvalue) int {
	if n := len(obj.members); n > 0 {
		return obj.members[n-1].val.end
	}
	return -1
}

// insertItem builds the edit adding one item (a member or an element,
// written as format with its value's text for %s) at the end of the
// container spanning [start, end) whose line is indented by ind.
func insertItem(b []byte, start, end int, nonEmpty bool, last int, ind, format string, val any, l layout) edit {
	if !l.pretty {
		text := fmt.Sprintf(format, renderJSON(val, "", l))
		if nonEmpty {
			return edit{last, last, "," + text}
		}
		return edit{start + 1, end - 1, text}
	}
	inner := ind + l.unit
	text := fmt.Sprintf(format, renderJSON(val, inner, l))
	if nonEmpty {
		return edit{last, last, ",\n" + inner + text}
	}
	return edit{start + 1, end - 1, "\n" + inner + text + "\n" + ind}
}

func sep(l layout) string {
	if l.pretty {
		return ": "
	}
	return ":"
}

// ordered is a JSON object whose members are written in their order.
type ordered []kv

type kv struct {
	k string
	v any
}

// renderJSON writes v (a string, a bool, a []string, an ordered or a
// []ordered) as JSON: in the pretty layout, its nested lines indented by
// ind plus units.
func renderJSON(v any, ind string, l layout) string {
	var sb strings.Builder
	writeValue(&sb, v, ind, l)
	return sb.String()
}

func writeValue(sb *strings.Builder, v any, ind string, l layout) {
	nl := func(level string) {
		if l.pretty {
			sb.WriteString("\n" + level)
		}
	}
	switch v := v.(type) {
	case string:
		sb.WriteString(quote(v))
	case bool:
		fmt.Fprint(sb, v)
	case []string:
		if len(v) == 0 {
			sb.WriteString("[]")
			return
		}
		sb.WriteByte('[')
		for i, s := range v {
			if i > 0 {
				sb.WriteByte(',')
			}
			nl(ind + l.unit)
			sb.WriteString(quote(s))
		}
		nl(ind)
		sb.WriteByte(']')
	case []ordered:
		if len(v) == 0 {
			sb.WriteString("[]")
			return
		}
		sb.WriteByte('[')
		for i, o := range v {
			if i > 0 {
				sb.WriteByte(',')
			}
			nl(ind + l.unit)
			writeValue(sb, o, ind+l.unit, l)
		}
		nl(ind)
		sb.WriteByte(']')
	case ordered:
		if len(v) == 0 {
			sb.WriteString("{}")
			return
		}
		sb.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				sb.WriteByte(',')
			}
			nl(ind + l.unit)
			sb.WriteString(quote(m.k) + sep(l))
			writeValue(sb, m.v, ind+l.unit, l)
		}
		nl(ind)
		sb.WriteByte('}')
	default:
		panic(fmt.Sprintf("render: %T", v)) // a programming error: only the types above are built
	}
}

// quote writes s as a JSON string, as the server writes them (no HTML
// escapes: a URL's & stays readable).
func quote(s string) string { return string(jsontext.AppendString(nil, s)) }
