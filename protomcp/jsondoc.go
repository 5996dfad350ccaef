package protomcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// object is a JSON object with its members in document order, so that the
// problems of a refused request are listed in the order the model wrote
// them, as the root's schema errors are, and a key given twice is seen.
type object struct{ members []member }

type member struct {
	key   string
	value any
}

// tooDeep stands for a value nested deeper than readDocument descends.
type tooDeep struct{}

// MarshalJSON writes the object with its members in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// readDocument reads one JSON value: objects as *object, arrays as []any,
// numbers as json.Number, and any value nested more than maxDepth+1 levels
// as tooDeep (its tokens read, not kept).
func readDocument(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("there is more after the arguments object")
	}
	return v, nil
}

func readValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth > maxDepth+1 {
		return tooDeep{}, skip(dec)
	}
	switch delim {
	case '{':
		o := &object{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			o.members = append(o.members, member{key: k, value: v})
		}
		_, err := dec.Token() // '}'
		return o, err
	case '[':
		list := []any{}
		for dec.More() {
			v, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token() // ']'
		return list, err
	}
	return nil, errors.New("unexpected " + delim.String())
}

// skip reads the rest of the object or array whose opening token was just
// read.
func skip(dec *json.Decoder) error {
	for level := 1; level > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			level++
		case json.Delim('}'), json.Delim(']'):
			level--
		}
	}
	return nil
}
