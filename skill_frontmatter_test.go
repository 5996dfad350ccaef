package ferry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFrontMatter(t *testing.T) {
	head := "---\nname: a\ndescription: d\n"
	tests := []struct {
		name, in string
		want     map[string]any
	}{
		{"plain", head + "---\nbody", map[string]any{"name": "a", "description": "d"}},
		{"quoted", "---\nname: 'a'\ndescription: \"it's \\\"q\\\" \\u00e9\\n\"\nlicense: 'it''s'\n---\n",
			map[string]any{"name": "a", "description": "it's \"q\" é\n", "license": "it's"}},
		{"comments, CRLF and a BOM", "\uFEFF---\r\n# c\r\nname: a\r\n\r\ndescription: d\r\n---\r\n", map[string]any{"name": "a", "description": "d"}},
		{"metadata", head + "metadata:\n  author: x\n  version: \"1.0\"\nallowed-tools: Bash(git:*) Read\n---\n",
			map[string]any{"name": "a", "description": "d", "metadata": map[string]any{"author": "x", "version": "1.0"}, "allowed-tools": "Bash(git:*) Read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFrontMatter([]byte(tt.in))
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Errorf("parseFrontMatter = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// What YAML would read as something other than the string Ferry would
// send is refused, with the line it is on.
func TestParseFrontMatterRefuses(t *testing.T) {
	head := "---\nname: a\ndescription: d\n"
	tests := []struct{ name, in, want string }{
		{"number", head + "version: 1.0\n---\n", "line 4"},
		{"boolean", head + "beta: true\n---\n", "not a string"},
		{"null", head + "x: ~\n---\n", "not a string"},
		{"flow list", head + "tags: [a, b]\n---\n", "quote it"},
		{"block scalar", head + "long: |\n  text\n---\n", "quote it"},
		{"colon space", head + "x: a: b\n---\n", "quote it"},
		{"comment after", head + "x: a #c\n---\n", "quote it"},
		{"continuation", head + "x: a\n  b\n---\n", "line 5"},
		{"duplicate", head + "name: b\n---\n", "appears twice"},
		{"deep map", head + "metadata:\n  k:\n---\n", "one level"},
		{"other map", head + "extra:\n  k: v\n---\n", "only metadata"},
		{"reserved", head + "metadata:\n  io.modelcontextprotocol/x: v\n---\n", "reserved"},
		{"tab", head + "metadata:\n\tk: v\n---\n", "tab"},
		{"bad escape", head + "x: \"\\q\"\n---\n", `\q`},
		{"short unicode", head + "x: \"\\u12\"\n---\n", "four hex"},
		{"open quote", head + "x: 'a\n---\n", "end with a quote"},
		{"lone quote", head + "x: 'a'b'\n---\n", "doubled"},
		{"no colon", head + "just words\n---\n", "not a \"key: value\""},
		{"long description", "---\nname: a\ndescription: " + strings.Repeat("d", 1025) + "\n---\n", "over 1024"},
		{"not UTF-8", "---\nname: \xff\n---\n", "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseFrontMatter([]byte(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseFrontMatter = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: \"d\\u0041\"\nmetadata:\n  k: 'v'\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := parseFrontMatter(data)
		if err == nil && (fm["name"] == nil || fm["description"] == nil) {
			t.Fatalf("accepted %q without a name and description", data)
		}
	})
}
