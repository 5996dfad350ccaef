package main

import (
	"context"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

// addModernPrompts adds the prompt of input-required-result-non-tool-request:
// prompts/get that needs an answer from the user first.
func addModernPrompts(srv *ferry.Server) {
	srv.AddPrompt(ferry.Prompt{Name: "test_input_required_result_prompt", Description: "Asks the user for context (key user_context), then builds the prompt."},
		func(ctx context.Context, _ *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			r, err := elicitAs(ctx, "user_context", "What context should the prompt use?", nameSchema("context"))
			if err != nil {
				return nil, err
			}
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{
				ferry.UserMessage(ferry.Text(fmt.Sprintf("Use this context: %v", r.Content["context"]))),
			}}, nil
		})
}
