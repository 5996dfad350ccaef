package protomcp

import "testing"

func TestStripSpaceKeepsStrings(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1,  "b":[ 2, 3 ]}`:            `{"a":1,"b":[2,3]}`,
		`{"s": "a b \" c\\", "t" : "\\\\ "}`: `{"s":"a b \" c\\","t":"\\\\ "}`,
		"{\n\t\"x\":\r\n\"\"}":               `{"x":""}`,
	} {
		if got := string(stripSpace([]byte(in))); got != want {
			t.Errorf("stripSpace(%s) = %s, want %s", in, got, want)
		}
	}
}
