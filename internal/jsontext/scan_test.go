package jsontext

import (
	"slices"
	"testing"
)

func TestEachMemberWalksTopLevelMembers(t *testing.T) {
	in := []byte(`{ "a" : [1,{"x":2}] , "b\"" : "}" ,"c":{}}`)
	var keys, values []string
	EachMember(in, func(k, v []byte) bool {
		keys, values = append(keys, string(k)), append(values, string(v))
		return true
	})
	if want := []string{`"a"`, `"b\""`, `"c"`}; !slices.Equal(keys, want) {
		t.Errorf("keys %q, want %q", keys, want)
	}
	if want := []string{`[1,{"x":2}]`, `"}"`, `{}`}; !slices.Equal(values, want) {
		t.Errorf("values %q, want %q", values, want)
	}
	n := 0
	if EachMember(in, func(_, _ []byte) bool { n++; return false }) || n != 1 {
		t.Errorf("stopping: ran %d times", n)
	}
}

func TestTypeOf(t *testing.T) {
	tests := map[string]Type{`{}`: Object, `[]`: Array, `"s"`: String, `true`: Bool, `false`: Bool,
		`null`: Null, `-1`: Number, `0.5`: Number, ``: Invalid, `x`: Invalid}
	for in, want := range tests {
		if got := TypeOf([]byte(in)); got != want {
			t.Errorf("TypeOf(%s) = %v, want %v", in, got, want)
		}
	}
	if Object.String() != "object" || Type(99).String() != "invalid" {
		t.Error("names")
	}
}
