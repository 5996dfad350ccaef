package jsonrpc

import (
	"fmt"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// decoder is the state of one [Decoder.Decode] or [Decoder.DecodeBatch].
// It lives on the caller's stack.
type decoder struct {
	maxDepth int
	methods  []string
	data     []byte
	sc       jsontext.Scanner
}

func (dc *Decoder) start(data []byte) decoder {
	return decoder{maxDepth: dc.MaxDepth, methods: dc.Methods, data: data,
		sc: jsontext.Scanner{MaxDepth: min(dc.MaxDepth, jsontext.MaxDepth)}}
}

// message decodes the message at d.data[i], inside depth levels (0, or 1
// in a batch), into m and returns the index past it.
func (d *decoder) message(i, depth int, m *Message, p Params) (int, Result, error) {
	if i >= len(d.data) || d.data[i] != '{' {
		end, err := d.value(i, depth)
		if err != nil {
			return end, Result{}, err
		}
		return end, notObject(d.data[i:end], m), nil
	}
	e := envelope{m: m, p: p}
	end, err := d.envelope(i, depth+1, &e)
	if err != nil {
		return end, Result{}, err
	}
	return end, e.result(), nil
}

// envelope decodes the members of the envelope object at d.data[i],
// which nests at depth, into e, and returns the index past it.
func (d *decoder) envelope(i, depth int, e *envelope) (int, error) {
	var scratch [32]byte // a member name with escapes, decoded
	i, more, err := d.open(i, depth, '}')
	for more && err == nil {
		var name []byte
		if name, i, err = d.key(i, scratch[:0]); err != nil {
			break
		}
		var mem member
		if mem, err = e.member(name); err != nil {
			break
		}
		if i, err = e.value(d, mem, i, depth); err == nil {
			i, more, err = d.close(i, '}')
		}
	}
	return i, err
}

// params hands the members of the params object at d.data[i], which
// nests at depth, to e's Params, and returns the index past it.
func (d *decoder) params(i, depth int, e *envelope) (int, error) {
	i, more, err := d.open(i, depth, '}')
	for more && err == nil {
		var name []byte
		var at int
		if name, at, err = d.key(i, nil); err != nil {
			break
		}
		if i, err = d.value(at, depth); err != nil {
			break
		}
		if e.p != nil && e.perr == nil {
			e.perr = e.p.Member(name, d.data[at:i])
		}
		i, more, err = d.close(i, '}')
	}
	return i, err
}

// open opens the array or object at d.data[i], which nests at depth: it
// returns the index of its first member or element and true, or the
// index past it and false when it is empty.
func (d *decoder) open(i, depth int, closer byte) (int, bool, error) {
	if !d.sc.Open(depth) {
		return i, false, d.depthError()
	}
	i = jsontext.SkipSpace(d.data, i+1)
	if i < len(d.data) && d.data[i] == closer {
		return i + 1, false, nil
	}
	return i, true, nil
}

// close reads what follows a member or element that ends at d.data[i]:
// it returns the index of the next one and true, or the index past the
// closing bracket and false.
func (d *decoder) close(i int, closer byte) (int, bool, error) {
	i = jsontext.SkipSpace(d.data, i)
	switch {
	case i >= len(d.data):
		return i, false, d.syntaxError(i)
	case d.data[i] == ',':
		return jsontext.SkipSpace(d.data, i+1), true, nil
	case d.data[i] == closer:
		return i + 1, false, nil
	}
	return i, false, d.syntaxError(i)
}

// key checks the member name at d.data[i] and the colon after it, and
// returns the name (escapes decoded into buf, when it has any) and where
// the value starts.
func (d *decoder) key(i int, buf []byte) (name []byte, value int, err error) {
	data := d.data
	if i >= len(data) || data[i] != '"' {
		return nil, i, d.syntaxError(i)
	}
	end, escaped, ok := jsontext.ScanString(data, i)
	if !ok {
		return nil, end, d.syntaxError(end)
	}
	name = data[i+1 : end-1]
	if escaped {
		name = jsontext.AppendUnquoted(buf, name)
	}
	value = jsontext.SkipSpace(data, end)
	if value >= len(data) || data[value] != ':' {
		return nil, value, d.syntaxError(value)
	}
	return name, jsontext.SkipSpace(data, value+1), nil
}

// value checks the value at d.data[i], inside depth levels, and returns
// the index past it.
func (d *decoder) value(i, depth int) (int, error) {
	end, ok := d.sc.Value(d.data, i, depth)
	switch {
	case ok:
		return end, nil
	case d.sc.TooDeep():
		return end, d.depthError()
	}
	return end, d.syntaxError(end)
}

// depthError is the error of a bracket nested too deep: past the
// caller's bound, or past JSON's own, which json.Valid calls a syntax
// error.
func (d *decoder) depthError() error {
	if d.maxDepth > jsontext.MaxDepth {
		return fmt.Errorf("%w: more than %d levels of arrays and objects", ErrParse, jsontext.MaxDepth)
	}
	return fmt.Errorf("%w: more than %d levels of arrays and objects", ErrTooDeep, d.maxDepth)
}

func (d *decoder) syntaxError(i int) error {
	return fmt.Errorf("%w: invalid JSON at byte %d", ErrParse, i)
}
