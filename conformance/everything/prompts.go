package main

import (
	"context"

	"github.com/ferry-mcp/ferry"
)

// promptArgs are the arguments of test_prompt_with_arguments; arg1
// completes from its enum.
type promptArgs struct {
	Arg1 string `json:"arg1" doc:"First test argument" suggest:"test,testing,tested,other"`
	Arg2 string `json:"arg2" doc:"Second test argument"`
}

type embedArgs struct {
	ResourceURI string `json:"resourceUri" doc:"URI of the resource to embed"`
}

func addPrompts(srv *ferry.Server) {
	ferry.AddPromptTemplate[struct{}](srv, ferry.Prompt{Name: "test_simple_prompt", Description: "A prompt with no arguments.",
		Template: "This is a simple prompt for testing."})
	ferry.AddPromptTemplate[promptArgs](srv, ferry.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.",
		Template: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'"})
	ferry.AddPrompt(srv, ferry.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource."},
		func(_ context.Context, a embedArgs) ([]ferry.PromptMessage, error) {
			return []ferry.PromptMessage{
				ferry.UserMessage(&ferry.EmbeddedResource{Resource: ferry.ResourceContents{
					URI: a.ResourceURI, MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				ferry.UserMessage(ferry.Text("Please process the embedded resource above.")),
			}, nil
		})
	ferry.AddPrompt(srv, ferry.Prompt{Name: "test_prompt_with_image", Description: "A prompt that carries an image."},
		func(context.Context, struct{}) ([]ferry.PromptMessage, error) {
			return []ferry.PromptMessage{
				ferry.UserMessage(ferry.Image(pngPixel, "image/png")),
				ferry.UserMessage(ferry.Text("Please analyze the image above.")),
			}, nil
		})
}
