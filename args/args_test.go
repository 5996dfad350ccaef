package args

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/schema"
	"github.com/google/go-cmp/cmp"
)

const sample = `{
	"period": "Q1", "empty": "", "nothing": null, "count": 12, "countText": "12", "countExp": "1e3",
	"half": 1.5, "huge": 1e20, "price": "£1,234.50", "ratio": 0.25, "word": "ten",
	"from": "2026-03-31", "month": "March 2026", "badDay": "2026-02-30",
	"on": true, "onText": "false", "yes": "yes",
	"tags": ["a", "b"], "tagText": "a, b", "mixed": ["a", 2, true], "one": "solo",
	"tagJSON": "[\"a, b\", \"c\"]", "tagBadJSON": "[\"a\", \"b\""
}`

func mustParse(t *testing.T, raw string) Args {
	t.Helper()
	a, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return a
}

// errText returns err's text, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReaders(t *testing.T) {
	t.Parallel()
	a := mustParse(t, sample)
	tests := []struct {
		name string
		read func() (any, error)
		want any
		err  string
	}{
		{"required text", func() (any, error) { return RequiredText(a, "period") }, "Q1", ""},
		{"required empty text", func() (any, error) { return RequiredText(a, "empty") }, "", ""},
		{"required text absent", func() (any, error) { return RequiredText(a, "missing") }, "", "missing: is required"},
		{"required text null", func() (any, error) { return RequiredText(a, "nothing") }, "", "nothing: is required"},
		{"required text number", func() (any, error) { return RequiredText(a, "count") }, "", "count: expected a string, got 12"},
		{"text default", func() (any, error) { return Text(a, "missing", "all") }, "all", ""},
		{"text null default", func() (any, error) { return Text(a, "nothing", "all") }, "all", ""},
		{"text present", func() (any, error) { return Text(a, "period", "all") }, "Q1", ""},
		{"text wrong type", func() (any, error) { return Text(a, "on", "all") }, "", "on: expected a string, got true"},
		{"date", func() (any, error) { return Date(a, "from") }, time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC), ""},
		{"date in words", func() (any, error) { return Date(a, "month") }, time.Time{}, `month: expected a date written yyyy-MM-dd, got "March 2026"`},
		{"date that does not exist", func() (any, error) { return Date(a, "badDay") }, time.Time{}, `badDay: expected a date written yyyy-MM-dd, got "2026-02-30"`},
		{"date absent", func() (any, error) { return Date(a, "missing") }, time.Time{}, "missing: is required"},
		{"number", func() (any, error) { return Number(a, "ratio") }, 0.25, ""},
		{"number from pounds", func() (any, error) { return Number(a, "price") }, 1234.5, ""},
		{"number from text", func() (any, error) { return Number(a, "countText") }, 12.0, ""},
		{"number in words", func() (any, error) { return Number(a, "word") }, 0.0, `word: expected a number, got "ten"`},
		{"number absent", func() (any, error) { return Number(a, "missing") }, 0.0, "missing: is required"},
		{"integer", func() (any, error) { return Integer(a, "count") }, int64(12), ""},
		{"integer from text", func() (any, error) { return Integer(a, "countText") }, int64(12), ""},
		{"integer from exponent", func() (any, error) { return Integer(a, "countExp") }, int64(1000), ""},
		{"integer with fraction", func() (any, error) { return Integer(a, "half") }, int64(0), "half: expected an integer, got 1.5"},
		{"integer too big", func() (any, error) { return Integer(a, "huge") }, int64(0),
			"huge: must be between -9223372036854775808 and 9223372036854775807, got 1e20"},
		{"integer absent", func() (any, error) { return Integer(a, "missing") }, int64(0), "missing: is required"},
		{"flag", func() (any, error) { return Flag(a, "on") }, true, ""},
		{"flag from text", func() (any, error) { return Flag(a, "onText") }, false, ""},
		{"flag absent", func() (any, error) { return Flag(a, "missing") }, false, ""},
		{"flag yes", func() (any, error) { return Flag(a, "yes") }, false, `yes: expected a boolean, got "yes"`},
		{"list", func() (any, error) { return List(a, "tags") }, []string{"a", "b"}, ""},
		{"list from text", func() (any, error) { return List(a, "tagText") }, []string{"a", "b"}, ""},
		{"list of one", func() (any, error) { return List(a, "one") }, []string{"solo"}, ""},
		{"list sent as JSON in a string", func() (any, error) { return List(a, "tagJSON") }, []string{"a, b", "c"}, ""},
		{"list sent as broken JSON in a string", func() (any, error) { return List(a, "tagBadJSON") }, []string(nil),
			`tagBadJSON: expected an array, got a string that starts with [ but is not valid JSON: "[\"a\", \"b\""`},
		{"list absent", func() (any, error) { return List(a, "missing") }, []string(nil), ""},
		{"list number", func() (any, error) { return List(a, "count") }, []string(nil), "count: expected an array, got 12"},
		{"list bad items", func() (any, error) { return List(a, "mixed") }, []string(nil),
			"mixed[1]: expected a string, got 2\nmixed[2]: expected a string, got true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.read()
			if errText(err) != tt.err {
				t.Fatalf("error = %q, want %q", errText(err), tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOptionalReaders(t *testing.T) {
	t.Parallel()
	a := mustParse(t, sample)
	if d, ok, err := OptionalDate(a, "missing"); ok || err != nil || !d.IsZero() {
		t.Errorf("OptionalDate(missing) = %v, %v, %v", d, ok, err)
	}
	if d, ok, err := OptionalDate(a, "from"); !ok || err != nil || d.Day() != 31 {
		t.Errorf("OptionalDate(from) = %v, %v, %v", d, ok, err)
	}
	if f, ok, err := OptionalNumber(a, "nothing"); ok || err != nil || f != 0 {
		t.Errorf("OptionalNumber(nothing) = %v, %v, %v", f, ok, err)
	}
	if n, ok, err := OptionalInteger(a, "half"); !ok || err == nil || n != 0 {
		t.Errorf("OptionalInteger(half) = %v, %v, %v", n, ok, err)
	}
}

func TestErrorsAreSchemaErrors(t *testing.T) {
	t.Parallel()
	a := mustParse(t, sample)
	_, err := Date(a, "month")
	var e *schema.Error
	if !errors.As(err, &e) || e.Path != "month" || e.Message != `expected a date written yyyy-MM-dd, got "March 2026"` {
		t.Errorf("Date error = %#v, want a *schema.Error at month", err)
	}
	_, err = List(a, "mixed")
	if !errors.As(err, &e) || e.Path != "mixed[1]" {
		t.Errorf("List error = %#v, want schema.Errors holding mixed[1]", err)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, err string
	}{
		{"object", `{"a":1}`, ""},
		{"absent", ``, ""},
		{"null", `null`, ""},
		{"array", `[1]`, "expected an object, got [1]"},
		{"invalid", `{"a":`, "arguments are not valid JSON: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(json.RawMessage(tt.raw))
			if errText(err) != tt.err {
				t.Errorf("Parse(%s) error = %q, want %q", tt.raw, errText(err), tt.err)
			}
		})
	}
}

func TestHasAndOnly(t *testing.T) {
	t.Parallel()
	a := mustParse(t, `{"color":"red","nothing":null,"colour":"blue","size":2}`)
	if !a.Has("color") || a.Has("nothing") || a.Has("missing") {
		t.Errorf("Has: color %v, nothing %v, missing %v", a.Has("color"), a.Has("nothing"), a.Has("missing"))
	}
	if err := Only(a, "color", "nothing", "colour", "size"); err != nil {
		t.Errorf("Only(all) = %v", err)
	}
	want := `colour: is not allowed: unknown property "colour"; known properties: color, size` + "\n" +
		`nothing: is not allowed: unknown property "nothing"; known properties: color, size`
	if got := errText(Only(a, "color", "size")); got != want {
		t.Errorf("Only = %q, want %q", got, want)
	}
	if got := errText(Only(mustParse(t, `{"x":1}`))); got != `x: is not allowed: unknown property "x"; this tool takes no arguments` {
		t.Errorf("Only() = %q", got)
	}
	var zero Args
	if zero.Has("a") || Only(zero) != nil {
		t.Error("the zero Args is not empty")
	}
	if _, err := RequiredText(zero, "a"); errText(err) != "a: is required" {
		t.Errorf("RequiredText(zero) = %v", err)
	}
}

func TestNumberOutOfRangeNamesTheArgument(t *testing.T) {
	a, err := Parse(json.RawMessage(`{"amount": 1e400}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Number(a, "amount")
	var se *schema.Error
	if !errors.As(err, &se) || se.Path != "amount" {
		t.Fatalf("Number(1e400) = %v; want a *schema.Error at amount", err)
	}
}
