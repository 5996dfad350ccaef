package ferry

import (
	"context"

	"github.com/ferry-mcp/ferry/internal/prompttext"
)

// This file holds template prompts: a Template whose {{name}}
// placeholders are replaced by the arguments of that name, and whose
// sections are kept or left out (see package internal/prompttext).

// templateHandler renders a prompt's template with its arguments. A
// template that does not parse is a problem checkPrompt reports, and its
// prompt is not registered.
func templateHandler(p *Prompt) PromptHandler {
	tmpl, err := prompttext.Parse(p.Template)
	prefer, desc := p.PreferWhen, p.Description
	return func(_ context.Context, req *GetPromptRequest) (*PromptResult, error) {
		if err != nil {
			return nil, err
		}
		text := tmpl.Render(req.Arguments)
		if prefer != "" {
			text += "\n\nTool preference: " + prefer
		}
		return &PromptResult{Description: desc, Messages: []PromptMessage{UserMessage(Text(text))}}, nil
	}
}
