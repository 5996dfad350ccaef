package schema

import (
	"fmt"
	"strings"
	"testing"
)

func TestPortable(t *testing.T) {
	long := strings.Repeat("é", MaxDescription+1)
	tests := []struct {
		name string
		s    *Schema
		want string // "" for no error
	}{
		{"fine", Object(Required("a", Text(strings.Repeat("é", MaxDescription)))), ""},
		{"long root", Text(long), "schema: description has 1025 characters, more than 1024"},
		{"long nested", Object(Required("items", ListOf(Object(Optional("name", Text(long))), ""))),
			"schema: description at items[].name has 1025 characters, more than 1024"},
		{"long map value", &Schema{Type: "object", AdditionalProperties: Text(long)},
			"schema: description at * has 1025 characters, more than 1024"},
		{"empty name and nil", &Schema{Type: "object", Properties: map[string]*Schema{"": Text(""), "b": nil}},
			"schema: empty property name\nschema: null schema at b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.s.Portable()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// PortableJSON checks what a Schema cannot hold, and reports every problem
// rather than the first.
func TestPortableJSONReportsEveryProblem(t *testing.T) {
	long := strings.Repeat("x", MaxDescription+1)
	tests := []struct {
		name, data string
		want       []string // the lines of the error, nil for none
	}{
		{"fine", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, nil},
		{"ref and defs", `{"type":"object","$defs":{"address":{"type":"object"}},"properties":{"address":{"$ref":"#/$defs/address"}}}`,
			[]string{"schema: $ref at address, which some clients reject: inline the schema"}},
		{"booleans", `{"type":"object","properties":{"any":true,"none":false},"items":true,"anyOf":[{"type":"string"},true],"additionalProperties":false}`,
			[]string{
				"schema: the schema true at anyOf[1], which some clients reject: write an object schema",
				"schema: the schema true at [], which some clients reject: write an object schema",
				"schema: the schema true at any, which some clients reject: write an object schema",
				"schema: the schema false at none, which some clients reject: write an object schema",
			}},
		{"several at once", `{"description":"` + long + `","properties":{"":{},"n":null,"d":{"description":"` + long + `"}}}`,
			[]string{
				"schema: description has 1025 characters, more than 1024",
				"schema: empty property name",
				"schema: description at d has 1025 characters, more than 1024",
				"schema: null schema at n",
			}},
		{"true root", `true`, []string{"schema: the schema is true, which some clients reject: write an object schema"}},
		{"not JSON", `{`, []string{"schema: not valid JSON: unexpected EOF"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			if err := PortableJSON([]byte(tt.data)); err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A hostile schema (ferry lint reads other servers') gets a bounded
// report: a long property name is cut in paths and problems past the
// first 20 are counted, not listed.
func TestPortableJSONBoundsItsReport(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"` + strings.Repeat("n", 100_000) + `":{"type":"object","properties":{`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":true`, i)
	}
	b.WriteString(`}}}}`)
	err := PortableJSON([]byte(b.String()))
	if err == nil {
		t.Fatal("no problems reported")
	}
	msg := err.Error()
	if len(msg) > 10_000 || !strings.Contains(msg, "and 4980 more problems") {
		t.Errorf("report of %d bytes, ends %q; want under 10 kB ending with the count", len(msg), msg[max(0, len(msg)-80):])
	}
}

// A deeply nested schema gets a path cut to a few hundred bytes: the
// report stays short, and each level costs no more than the cut path
// (building every level's whole path made a 500 kB schema cost seconds).
func TestPortableJSONCutsDeepPaths(t *testing.T) {
	const depth = 1000
	name := strings.Repeat("a", maxPathName)
	var b strings.Builder
	for range depth {
		b.WriteString(`{"properties":{"` + name + `":`)
	}
	b.WriteString(`{"$ref":"#/x","items":{"anyOf":[true]}}`)
	for range depth {
		b.WriteString(`}}`)
	}
	err := PortableJSON([]byte(b.String()))
	if err == nil {
		t.Fatal("no problems reported")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d problems, want 2 ($ref, true):\n%.500s", len(lines), err)
	}
	for _, l := range lines {
		if len(l) > maxPath+100 || !strings.Contains(l, "a...") {
			t.Errorf("problem of %d bytes, want a path cut after %d: %.200s", len(l), maxPath, l)
		}
	}
}
