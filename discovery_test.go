package ferry

import "testing"

func TestParseCallArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw, name, args string
		ok              bool
	}{
		{`{"name":"a","arguments":{"x":1}}`, "a", `{"x":1}`, true},
		{`{ "arguments" : { } , "name" : "b" }`, "b", `{ }`, true},
		{`{"name":"a","arguments":null}`, "a", "", true},
		{`{"name":"a"}`, "a", "", true},
		{`{"name":"a\u0062"}`, "ab", "", true},
		{`{"name":""}`, "", "", false},
		{`{"name":1}`, "", "", false},
		{`{"name":"a","name":"b"}`, "", "", false},
		{`{"name":"a","arguments":[1]}`, "", "", false},
		{`{"name":"a","arguments":{},"arguments":{}}`, "", "", false},
		{`{"name":"a","extra":1}`, "", "", false},
		{`{"n\u0061me":"a"}`, "", "", false},
		{`[]`, "", "", false},
		{``, "", "", false},
	}
	for _, tt := range tests {
		a, ok := parseCallArgs([]byte(tt.raw))
		if ok != tt.ok || ok && (a.Name != tt.name || string(a.Arguments) != tt.args) {
			t.Errorf("parseCallArgs(%s) = %q %s %v, want %q %s %v", tt.raw, a.Name, a.Arguments, ok, tt.name, tt.args, tt.ok)
		}
	}
}
