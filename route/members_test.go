package route

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// readAll returns the members of data as key (unquoted) and raw value.
func readAll(data []byte) ([][2]string, error) {
	m, err := newMembers(data)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for {
		key, val, ok, err := m.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		name, _ := unquote(key)
		out = append(out, [2]string{string(name), string(val)})
	}
}

func TestMembersReadsAnObjectInOrder(t *testing.T) {
	got, err := readAll([]byte(` { "a" : 1, "b\u0021":"x\"}", "c":{"d":[1,{"e":"]"}]}, "f":[] ,"g":null} `))
	want := [][2]string{{"a", "1"}, {"b!", `"x\"}"`}, {"c", `{"d":[1,{"e":"]"}]}`}, {"f", "[]"}, {"g", "null"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	for _, empty := range []string{"", "null", "{}", " { } "} {
		if got, err := readAll([]byte(empty)); err != nil || len(got) != 0 {
			t.Errorf("%q: %q, %v", empty, got, err)
		}
	}
	for _, bad := range []string{"[1]", `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"x`, `{"a":{"b":1}`, `{"a":1 "b":2}`} {
		if _, err := readAll([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzMembers checks that members never panics, and agrees with
// encoding/json on the keys and values of every valid object.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\"","b":[{"c":"}"}]}`, `{}`, `null`, `{"a":`, `[`, `{"\u00e9":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := readAll(data)
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return // not an object: members may read it or not, but must not panic
		}
		if err != nil {
			t.Fatalf("members of %q: %v", data, err)
		}
		for _, kv := range got {
			if !utf8.ValidString(kv[0]) {
				continue // encoding/json reads it with U+FFFD
			}
			var a, b any
			if json.Unmarshal([]byte(kv[1]), &a) != nil || json.Unmarshal(want[kv[0]], &b) != nil {
				t.Fatalf("members of %q: %q is not a value", data, kv[1])
			}
		}
		if len(want) > len(got) {
			t.Fatalf("members of %q: %d members, encoding/json has %d", data, len(got), len(want))
		}
	})
}

func TestPatternsParseAsServeMuxReadsThem(t *testing.T) {
	tests := []struct{ text, prefix, sample string }{
		{"GET /", "", "/"},
		{"GET /orders", "/api", "/api/orders"},
		{"GET /files/", "", "/files/"},
		{"GET /files/{$}", "", "/files/"},
		{"POST /orders/{id}/cancel", "", "/orders/P/cancel"},
		{"GET /files/{path...}", "", "/files/P"},
	}
	for _, tt := range tests {
		p, err := parsePattern(tt.text, tt.prefix)
		if err != nil {
			t.Errorf("%q: %v", tt.text, err)
			continue
		}
		if got := p.sample("P"); got != tt.sample {
			t.Errorf("%q: sample %q, want %q", tt.text, got, tt.sample)
		}
	}
	for _, bad := range []string{"GET", "GET orders", "GET /a//b", "GET /{id}/{id}", "GET /{a-b}", "GET /{x...}/", "GET /{$}/x", "GET /a b", "GET /./a", "get /a"} {
		if _, err := parsePattern(bad, ""); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
