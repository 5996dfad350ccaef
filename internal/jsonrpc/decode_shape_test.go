package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// The nesting and envelope rules, as CheckShape held them before the
// decoder: brackets in strings and escapes do not count, nested objects
// may repeat envelope names, a batch's array is a level.
func TestDecodeShape(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name string
		in   string
		want error // nil, ErrTooDeep or ErrMember
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":2}]}}}`, nil},
		{"at the limit", `{"a":` + deep(7) + `}`, nil},
		{"one too deep", `{"a":` + deep(8) + `}`, ErrTooDeep},
		{"brackets in strings do not count", `{"a":"` + deep(100) + `"}`, nil},
		{"escaped quote in a string", `{"a":"\"[[[[[[[[[[","method":"x"}`, nil},
		{"escaped backslash before a quote", `{"a":"x\\\\","method":"p","method":"q"}`, ErrMember},
		{"long keys are no members", `{"jsonrpc":"2.0","id":1,"method":"x","parameters":{},"identifier":2}`, nil},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`, ErrMember},
		{"id twice", `{"id":1,"jsonrpc":"2.0","id":2,"method":"ping"}`, ErrMember},
		{"case variant", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, ErrMember},
		{"folded variant", `{"jsonrpc":"2.0","id":1,"method":"ping","paramſ":{}}`, ErrMember},
		{"escaped repeat", `{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"x"}`, ErrMember},
		{"escaped once", `{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`, nil},
		{"names as values", `{"jsonrpc":"2.0","id":"method","method":"params"}`, nil},
		{"nested members may repeat", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"Method":1,"id":2,"id":3}}`, nil},
		{"batch element", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b","id":3}]`, ErrMember},
		{"batch elements each once", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`, nil},
		{"a batch counts as a level", `[{"a":` + deep(6) + `}]`, nil},
		{"a batch too deep", `[{"a":` + deep(7) + `}]`, ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeShape([]byte(tt.in), 8)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("decode(%s) = %v, want %v", tt.in, err, tt.want)
			}
		})
	}
}

// decodeShape decodes data, a message or a batch, and returns what
// refuses it whole.
func decodeShape(data []byte, maxDepth int) error {
	dc := Decoder{MaxDepth: maxDepth}
	if IsBatch(data) {
		return dc.DecodeBatch(data, new(batchOf))
	}
	_, err := dc.Decode(data, new(Message), nil)
	return err
}

// depthOf returns how deeply valid JSON nests, without recursion.
func depthOf(data []byte) (int, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return most, true
		}
		if err != nil {
			return 0, false
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			depth++
			most = max(most, depth)
		case json.Delim(']'), json.Delim('}'):
			depth--
		}
	}
}

// For valid JSON, the decoder reports ErrTooDeep exactly when the value
// nests deeper than the limit (a batch's array counting as a level); on
// anything it returns without panicking.
func FuzzDecodeDepth(f *testing.F) {
	for _, s := range []string{`{"a":[[1]]}`, `[[[[]]]]`, `{"id":1,"id":2}`, `"[[["`, `{"a":"\"{"}`, `[{"method":1},{"Method":2}]`} {
		f.Add([]byte(s), 3)
	}
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = 1 + abs(limit)%10
		err := decodeShape(data, limit)
		if !json.Valid(data) || errors.Is(err, ErrMember) || errors.Is(err, ErrEmptyBatch) {
			return
		}
		d, ok := depthOf(data)
		if !ok {
			return
		}
		if tooDeep := errors.Is(err, ErrTooDeep); tooDeep != (d > limit) {
			t.Errorf("decode(%q, %d) = %v; the value nests %d deep", data, limit, err, d)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
