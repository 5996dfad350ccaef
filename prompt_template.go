package ferry

import (
	"context"
	"regexp"
)

// This file holds template prompts: a Template whose {{name}}
// placeholders are replaced by the arguments of that name.

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}`)

// templateHandler renders a prompt's template with its arguments.
func templateHandler(p *Prompt) PromptHandler {
	tmpl, prefer, desc := p.Template, p.PreferWhen, p.Description
	return func(_ context.Context, req *GetPromptRequest) (*PromptResult, error) {
		text := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
			return req.Arguments[placeholder.FindStringSubmatch(m)[1]]
		})
		if prefer != "" {
			text += "\n\nTool preference: " + prefer
		}
		return &PromptResult{Description: desc, Messages: []PromptMessage{UserMessage(Text(text))}}, nil
	}
}
