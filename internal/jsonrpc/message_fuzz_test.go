package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"
)

var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope","data":[1]}}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`[]`,
	`"str"`,
	`null`,
	`{"jsonrpc":"2.0","id":`,
	"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"\xfe\"}",
	`{"jsonrpc":"2.0","id":-0,"method":"a\u2028b"}`,
	``,
	` `,
}

// FuzzDecode checks that Decode never panics, that it refuses whatever is
// not JSON (as a parse error, or for an envelope member repeated before
// the syntax error), and that whatever it accepts can be answered and
// re-encoded as valid JSON.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, kind, err := Decode(data)
		valid := json.Valid(data)
		if errors.Is(err, ErrParse) && valid || !valid && !errors.Is(err, ErrParse) && !errors.Is(err, ErrMember) {
			t.Errorf("Decode(%q): %v, but json.Valid says %v", data, err, valid)
		}
		if err != nil {
			if kind != KindInvalid {
				t.Errorf("Decode(%q) failed with kind %v", data, kind)
			}
			// The error answer echoes the id when it can be read.
			var id json.RawMessage
			if m.ValidID() {
				id = m.ID
			}
			if resp := AppendError(nil, id, CodeInvalidRequest, err.Error(), nil); !json.Valid(resp) {
				t.Errorf("error response for %q is not JSON: %s", data, resp)
			}
			return
		}
		if m == nil {
			t.Fatalf("Decode(%q) returned no message and no error", data)
		}
		if enc, err := json.Marshal(m); err != nil || !json.Valid(enc) {
			t.Errorf("re-encoding %q: %s, %v", data, enc, err)
		}
		switch kind {
		case KindRequest:
			if !m.ValidID() {
				t.Errorf("request %q has an id that cannot be echoed: %s", data, m.ID)
			}
			req := AppendRequest(nil, m.ID, m.Method, m.Params)
			if !json.Valid(req) {
				t.Fatalf("re-encoded request of %q is not JSON: %s", data, req)
			}
			m2, kind2, err := Decode(req)
			if err != nil || kind2 != KindRequest || m2.Method != m.Method {
				t.Errorf("re-encoded request %s decodes as %v, %v (method %q, want %q)", req, kind2, err, m2.Method, m.Method)
			}
			resp := AppendResultHead(nil, m.ID)
			resp = append(resp, "{}}"...)
			if !json.Valid(resp) {
				t.Errorf("result response for %q is not JSON: %s", data, resp)
			}
			if resp := AppendError(nil, m.ID, CodeMethodNotFound, m.Method, m.Params); !json.Valid(resp) {
				t.Errorf("error response for %q is not JSON: %s", data, resp)
			}
		case KindNotification:
			if m.ID != nil {
				t.Errorf("notification %q has an id", data)
			}
			if n := AppendRequest(nil, nil, m.Method, m.Params); !json.Valid(n) {
				t.Errorf("re-encoded notification of %q is not JSON: %s", data, n)
			}
		case KindResponse:
			if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
				t.Errorf("response %q: id %s, result %s, error %v", data, m.ID, m.Result, m.Error)
			}
		default:
			t.Errorf("Decode(%q) returned kind %v without an error", data, kind)
		}
		if IsBatch(data) {
			t.Errorf("Decode accepted %q, which IsBatch calls a batch", data)
		}
	})
}
