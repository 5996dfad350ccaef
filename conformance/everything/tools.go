package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A 1x1 PNG and a short WAV, as fixtures.
var (
	pngPixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
	wavSound, _ = base64.StdEncoding.DecodeString("UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=")
)

func noArgs() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }

func text(s string) *ferry.ToolResult {
	return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(s)}}
}

// addTools adds the tools the conformance scenarios call, by group.
func addTools(srv *ferry.Server) {
	addContentTools(srv)
	addRunningTools(srv)
	addClientTools(srv)
	addSchemaTools(srv)
}

// addContentTools adds the tools that answer each kind of content.
func addContentTools(srv *ferry.Server) {
	simple := func(name, desc string, f func() *ferry.ToolResult) {
		srv.AddTool(ferry.Tool{Name: name, Description: desc, RawInputSchema: noArgs(), ReadOnly: true, ClosedWorld: true},
			func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return f(), nil })
	}
	simple("test_simple_text", "Returns a line of text.", func() *ferry.ToolResult {
		return text("This is a simple text response for testing.")
	})
	simple("test_image_content", "Returns a small PNG image.", func() *ferry.ToolResult {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Image(pngPixel, "image/png")}}
	})
	simple("test_audio_content", "Returns a short WAV sound.", func() *ferry.ToolResult {
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Audio(wavSound, "audio/wav")}}
	})
	simple("test_embedded_resource", "Returns an embedded text resource.", func() *ferry.ToolResult {
		return &ferry.ToolResult{Content: []ferry.Content{&ferry.EmbeddedResource{Resource: ferry.ResourceContents{
			URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."}}}}
	})
	simple("test_multiple_content_types", "Returns text, an image and a resource together.", func() *ferry.ToolResult {
		return &ferry.ToolResult{Content: []ferry.Content{
			ferry.Text("Multiple content types test:"),
			ferry.Image(pngPixel, "image/png"),
			&ferry.EmbeddedResource{Resource: ferry.ResourceContents{URI: "test://mixed-content-resource",
				MIMEType: "application/json", Text: `{"test":"data","value":123}`}},
		}}
	})
}

// addRunningTools adds the tools that fail, log, report progress or wait.
func addRunningTools(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "test_error_handling", Description: "Always fails, as a tool error.", RawInputSchema: noArgs()},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewErrorResult("This tool intentionally returns an error for testing"), nil
		})
	srv.AddTool(ferry.Tool{Name: "test_tool_with_logging", Description: "Sends three log messages while it runs.", RawInputSchema: noArgs()},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					time.Sleep(50 * time.Millisecond)
				}
				_ = ferry.NotifyLog(ctx, ferry.LevelInfo, "everything", msg)
			}
			return text("Tool with logging executed successfully"), nil
		})
	srv.AddTool(ferry.Tool{Name: "test_tool_with_progress", Description: "Reports progress three times while it runs.", RawInputSchema: noArgs()},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			for i, p := range []float64{0, 50, 100} {
				if i > 0 {
					time.Sleep(50 * time.Millisecond)
				}
				_ = ferry.NotifyProgress(ctx, ferry.Progress{Progress: p, Total: 100, Message: fmt.Sprintf("step %d", i+1)})
			}
			return text("Tool with progress executed successfully"), nil
		})
}

// addClientTools adds the tools that ask the client: sampling and elicitation.
func addClientTools(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "test_sampling", Description: "Asks the client's model to answer a prompt.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"prompt":{"type":"string","description":"What to ask the model."}},"required":["prompt"]}`)},
		func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			var in struct{ Prompt string }
			_ = json.Unmarshal(req.Arguments, &in)
			res, err := ferry.CreateMessage(ctx, &ferry.CreateMessageParams{MaxTokens: 100,
				Messages: []ferry.PromptMessage{{Role: ferry.RoleUser, Content: ferry.Text(in.Prompt)}}})
			if err != nil {
				return nil, err
			}
			answer := ""
			if t, ok := res.Content.(*ferry.TextContent); ok {
				answer = t.Text
			}
			return text("LLM response: " + answer), nil
		})
	elicit := func(name, desc string, params func(msg string) *ferry.ElicitParams) {
		srv.AddTool(ferry.Tool{Name: name, Description: desc,
			RawInputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"What to ask the user."}}}`)},
			func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				var in struct{ Message string }
				_ = json.Unmarshal(req.Arguments, &in)
				if in.Message == "" {
					in.Message = "Please provide your information"
				}
				res, err := ferry.Elicit(ctx, params(in.Message))
				if err != nil {
					return nil, err
				}
				data, _ := json.Marshal(res.Content)
				return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, data)), nil
			})
	}
	elicit("test_elicitation", "Asks the user for a username and an email.", func(msg string) *ferry.ElicitParams {
		return &ferry.ElicitParams{Message: msg, RequestedSchema: json.RawMessage(`{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}`)}
	})
	elicit("test_elicitation_sep1034_defaults", "Asks the user for values that all have defaults.", func(string) *ferry.ElicitParams {
		return &ferry.ElicitParams{Message: "Please review and update the form fields with defaults", RequestedSchema: json.RawMessage(`{"type":"object","properties":{
"name":{"type":"string","description":"User name","default":"John Doe"},
"age":{"type":"integer","description":"User age","default":30},
"score":{"type":"number","description":"User score","default":95.5},
"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
"verified":{"type":"boolean","description":"Verification status","default":true}}}`)}
	})
	elicit("test_elicitation_sep1330_enums", "Asks the user to pick from every kind of enum.", func(string) *ferry.ElicitParams {
		return &ferry.ElicitParams{Message: "Please select options from the enum fields", RequestedSchema: json.RawMessage(`{"type":"object","properties":{
"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`)}
	})
}

// addSchemaTools adds the tools whose schemas and arguments the scenarios
// check (a 2020-12 schema, echo, add), and one that answers after a pause.
func addSchemaTools(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "json_schema_2020_12_tool", Description: "Takes input described by a JSON Schema 2020-12 document, kept verbatim.",
		RawInputSchema: json.RawMessage(schema2020)},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return text("Received: " + string(req.Arguments)), nil
		})
	srv.AddTool(ferry.Tool{Name: "test_reconnection", Description: "Waits briefly, then answers.", RawInputSchema: noArgs()},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return text("Reconnection test completed"), nil
		})
	srv.AddTool(ferry.Tool{Name: "echo", Description: "Returns its text.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"Text to return."}},"required":["text"]}`),
		ReadOnly:       true, ClosedWorld: true},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			var in struct {
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(req.Arguments, &in); err != nil || in.Text == nil {
				return ferry.NewErrorResult("text: required, a string"), nil
			}
			return text(*in.Text), nil
		})
	srv.AddTool(ferry.Tool{Name: "add", Description: "Adds two integers.",
		RawInputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
		RawOutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`),
		ReadOnly:        true, ClosedWorld: true},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			var in struct {
				A, B *int64
			}
			if err := json.Unmarshal(req.Arguments, &in); err != nil || in.A == nil || in.B == nil {
				return ferry.NewErrorResult("a and b: required, integers"), nil
			}
			sum := *in.A + *in.B
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(fmt.Sprintf(`{"sum":%d}`, sum))},
				StructuredContent: map[string]int64{"sum": sum}}, nil
		})
}
