package ferry_test

import (
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// A template's section holds text that appears only when its argument is
// given ({{#style}}...{{/style}}) or only when it is not ({{^style}}):
// an optional argument left out leaves no double space or dangling
// clause, and an argument's value is never read as template text.
func TestPromptTemplateSections(t *testing.T) {
	type args struct {
		ID    string `json:"id" doc:"The order's number."`
		Style string `json:"style,omitempty" doc:"The tone, such as warm."`
	}
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddPromptTemplate[args](srv, ferry.Prompt{Name: "summary", Description: "Summarizes an order.",
		Template: "Summarize order {{id}}{{#style}} in a {{style}} tone{{/style}}.{{^style}} Keep it short.{{/style}}"})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ args, want string }{
		{`{"id":"7","style":"warm"}`, `"text":"Summarize order 7 in a warm tone."`},
		{`{"id":"7"}`, `"text":"Summarize order 7. Keep it short."`},
		{`{"id":"7","style":""}`, `"text":"Summarize order 7. Keep it short."`},
		{`{"id":"{{#style}}x{{/style}}","style":"{{id}}"}`, `"text":"Summarize order {{#style}}x{{/style}} in a {{id}} tone."`},
	} {
		got := serveLine(t, srv, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"summary","arguments":`+tt.args+`}}`)
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s:\n got %s\nwant it to contain %s", tt.args, got, tt.want)
		}
	}
}

// Sections that do not pair, or name no argument, are start-up problems,
// each saying how to fix it.
func TestPromptTemplateSectionProblems(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	arg := []ferry.PromptArgument{{Name: "style", Description: "The tone."}}
	srv.AddPromptTemplate(ferry.Prompt{Name: "open", Description: "Never closes.", Arguments: arg, Template: "Hi{{#style}} there"})
	srv.AddPromptTemplate(ferry.Prompt{Name: "stray", Description: "Closes nothing.", Arguments: arg, Template: "Hi{{/style}}"})
	srv.AddPromptTemplate(ferry.Prompt{Name: "unknown", Description: "Names no argument.", Arguments: arg, Template: "Hi{{^tone}}!{{/tone}}"})
	err := srv.Check()
	if err == nil {
		t.Fatal("Check passed")
	}
	for _, want := range []string{
		`prompt "open": template: section {{#style}} is not closed: end it with {{/style}}`,
		`prompt "stray": template: {{/style}} closes no section: open one with {{#style}} before it, or remove it`,
		`prompt "unknown": template section {{#tone}} or {{^tone}} has no argument of that name`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check:\n%v\nlacks %q", err, want)
		}
	}
}
