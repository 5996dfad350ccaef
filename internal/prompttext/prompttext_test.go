package prompttext

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	const summary = "Summarize order {{id}}{{#style}} in a {{style}} tone{{/style}}.{{^style}} Keep it short.{{/style}}"
	const lines = "Summarize order {{id}}.\n  {{#style}}  \nWrite in a {{style}} tone.\n{{/style}}\r\n{{^style}}\nKeep it short.\n{{/style}}\nSign it."
	tests := []struct {
		name, tmpl string
		args       map[string]string
		want       string
	}{
		{"placeholder", "Hello {{name}}, {{ name }}!", map[string]string{"name": "Ada"}, "Hello Ada, Ada!"},
		{"absent placeholder", "Hello {{name}}.", nil, "Hello ."},
		{"section given", summary, map[string]string{"id": "7", "style": "warm"}, "Summarize order 7 in a warm tone."},
		{"section left out", summary, map[string]string{"id": "7"}, "Summarize order 7. Keep it short."},
		{"empty is not given", summary, map[string]string{"id": "7", "style": ""}, "Summarize order 7. Keep it short."},
		{"standalone lines given", lines, map[string]string{"id": "7", "style": "warm"}, "Summarize order 7.\nWrite in a warm tone.\nSign it."},
		{"standalone lines left out", lines, map[string]string{"id": "7"}, "Summarize order 7.\nKeep it short.\nSign it."},
		{"nested", "{{#a}}A{{#b}}B{{b}}{{/b}}{{^b}}-{{/b}}{{/a}}.", map[string]string{"a": "1", "b": "2"}, "AB2."},
		{"nested, inner left out", "{{#a}}A{{#b}}B{{b}}{{/b}}{{^b}}-{{/b}}{{/a}}.", map[string]string{"a": "1"}, "A-."},
		{"two tags on a line are not standalone", "x\n{{#a}}{{/a}}\ny", nil, "x\n\ny"},
		{"text around a tag keeps its line", "x {{#a}}\ny{{/a}} z", map[string]string{"a": "1"}, "x \ny z"},
		{"a value is never read as a template", "[{{q}}]", map[string]string{"q": "{{#q}}{{/x}}{{q}}"}, "[{{#q}}{{/x}}{{q}}]"},
		{"other braces are text", "{{}} {{ two words }} {{#}} {{ / }}", nil, "{{}} {{ two words }} {{#}} {{ / }}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := Parse(tt.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			if got := tmpl.Render(tt.args); got != tt.want {
				t.Errorf("Render = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tmpl, err := Parse("{{b}} {{#a}}{{b}}{{c}}{{/a}}{{^d}}{{/d}}{{#a}}{{/a}}")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"b", "c"}, tmpl.Placeholders()); diff != "" {
		t.Errorf("Placeholders (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "d"}, tmpl.Sections()); diff != "" {
		t.Errorf("Sections (-want +got):\n%s", diff)
	}
}

// Sections that do not pair are errors, each named with the fix.
func TestParseErrors(t *testing.T) {
	tests := []struct{ tmpl, want string }{
		{"Hi {{#style}}warm", "section {{#style}} is not closed: end it with {{/style}}"},
		{"Hi {{/style}}", "{{/style}} closes no section: open one with {{#style}} before it, or remove it"},
		{"{{#a}}{{#b}}x{{/a}}{{/b}}", "{{/a}} closes {{#a}}, but {{#b}} inside it is still open: close it with {{/b}} first\n" +
			"section {{#a}} is not closed: end it with {{/a}}"},
		{"{{#a}}x{{/b}}", "{{/b}} closes no open section: the innermost one open is {{#a}}; close it with {{/a}}\n" +
			"section {{#a}} is not closed: end it with {{/a}}"},
		{strings.Repeat("{{#a}}", MaxDepth+2) + strings.Repeat("{{/a}}", MaxDepth+2), "section {{#a}} is nested 33 deep; at most 32"},
		{strings.Repeat("{{#a}}", 1000), "section {{#a}} is nested 33 deep; at most 32\n" +
			strings.Repeat("section {{#a}} is not closed: end it with {{/a}}\n", 9) + "and 991 more problems"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.tmpl)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%.80q) = %v, want\n%s", tt.tmpl, err, tt.want)
		}
	}
}

// A huge template parses and renders in time linear in its size: a
// megabyte of tags takes well under the bound, which only proves it does
// not hang.
func TestHugeTemplate(t *testing.T) {
	const n = 1 << 15 // sections: about 1 MiB of template
	tmpl := strings.Repeat("{{#a}}x{{a}}\n{{/a}}{{^a}}y{{/a}}", n)
	args := map[string]string{"a": strings.Repeat("v", 100)}
	p, err := Parse(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if out, want := p.Render(args), n*102; len(out) != want {
		t.Errorf("rendered %d bytes, want %d", len(out), want)
	}
	// Linear, not quadratic: four times the template takes about four
	// times as long, not sixteen (the fastest of three runs each, so that
	// a busy machine weighs on both alike).
	quarter := tmpl[:len(tmpl)/4]
	if r := fastest(func() { q, _ := Parse(tmpl); q.Render(args) }) /
		fastest(func() { q, _ := Parse(quarter); q.Render(args) }); r > 10 {
		t.Errorf("four times the template took %.1f times as long; want about 4", r)
	}
}

// fastest returns the least time of three runs of f, in seconds.
func fastest(f func()) float64 {
	least := time.Duration(1 << 62)
	for range 3 {
		start := time.Now()
		f()
		least = min(least, time.Since(start))
	}
	return least.Seconds()
}

// Whatever the template, Parse does not panic; one that parses renders
// without panicking, never inserts a value twice for one placeholder,
// and renders the same text twice.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"Hello {{name}}", "{{#a}}x{{/a}}", "{{^a}}\n y \n{{/a}}\r\n", "{{#a}}{{#b}}{{/a}}{{/b}}", "{{/a}}", "{{#a}}",
		"{{ # a }}{{ / a }}", "{{}}{{{a}}}", "  {{#a}}  \n", strings.Repeat("{{#a}}", 40),
	} {
		f.Add(seed, "v")
	}
	f.Fuzz(func(t *testing.T, tmpl, v string) {
		p, err := Parse(tmpl)
		if err != nil {
			return
		}
		args := map[string]string{}
		for _, n := range append(p.Placeholders(), p.Sections()...) {
			args[n] = v
		}
		a, b := p.Render(args), p.Render(args)
		if a != b {
			t.Fatalf("two renders differ: %q, %q", a, b)
		}
		if len(a) > len(tmpl)*(len(v)+1)+len(tmpl) {
			t.Fatalf("rendered %d bytes from a template of %d and a value of %d", len(a), len(tmpl), len(v))
		}
		_ = p.Render(nil)
	})
}
