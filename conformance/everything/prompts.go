package main

import (
	"context"

	"github.com/ferry-mcp/ferry"
)

func addPrompts(srv *ferry.Server) {
	srv.AddPrompt(ferry.Prompt{Name: "test_simple_prompt", Description: "A prompt with no arguments."},
		func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{
				{Role: ferry.RoleUser, Content: ferry.Text("This is a simple prompt for testing.")}}}, nil
		})
	srv.AddPrompt(ferry.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two arguments.",
		Arguments: []ferry.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true}}},
		func(_ context.Context, req *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{{Role: ferry.RoleUser,
				Content: ferry.Text("Prompt with arguments: arg1='" + req.Arguments["arg1"] + "', arg2='" + req.Arguments["arg2"] + "'")}}}, nil
		})
	srv.AddPrompt(ferry.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource.",
		Arguments: []ferry.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(_ context.Context, req *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{
				{Role: ferry.RoleUser, Content: &ferry.EmbeddedResource{Resource: ferry.ResourceContents{
					URI: req.Arguments["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}},
				{Role: ferry.RoleUser, Content: ferry.Text("Please process the embedded resource above.")}}}, nil
		})
	srv.AddPrompt(ferry.Prompt{Name: "test_prompt_with_image", Description: "A prompt that carries an image."},
		func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{
				{Role: ferry.RoleUser, Content: ferry.Image(pngPixel, "image/png")},
				{Role: ferry.RoleUser, Content: ferry.Text("Please analyze the image above.")}}}, nil
		})
}
