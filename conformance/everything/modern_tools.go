package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// schema2020 is the input schema the json-schema-2020-12 scenario expects
// verbatim: $schema, $defs with an $anchor, composition and conditional
// keywords, additionalProperties.
const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},
"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
"then":{"required":["phone"]},"else":{"required":["email"]},
"additionalProperties":false}`

// nameSchema asks for one string property.
func nameSchema(prop string) json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"` + prop + `":{"type":"string"}},"required":["` + prop + `"]}`)
}

var okSchema = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)

// ask is one question of a multi round-trip fixture, named as the
// 2026-07-28 scenarios expect.
func elicitAs(ctx context.Context, key, msg string, schema json.RawMessage) (*ferry.ElicitResult, error) {
	return ferry.Elicit(ferry.WithInputKey(ctx, key), &ferry.ElicitParams{Message: msg, RequestedSchema: schema})
}

func sampleAs(ctx context.Context, key, prompt string, maxTokens int) (*ferry.CreateMessageResult, error) {
	return ferry.CreateMessage(ferry.WithInputKey(ctx, key), &ferry.CreateMessageParams{MaxTokens: maxTokens,
		Messages: []ferry.PromptMessage{{Role: ferry.RoleUser, Content: ferry.Text(prompt)}}})
}

func sampledText(r *ferry.CreateMessageResult) string {
	if t, ok := r.Content.(*ferry.TextContent); ok {
		return t.Text
	}
	return ""
}

// addModernTools adds the tools the 2026-07-28 scenarios of the
// conformance suite (0.2.0-alpha.12) call: the diagnostic tools of
// server-stateless, the input-required-result-* tools and a tool whose
// argument is mirrored in an Mcp-Param header.
func addModernTools(srv *ferry.Server, f *fixture) {
	addEraTools(srv, f)
	addInputRequiredTools(srv)
	addHeaderTools(srv)
}

// addEraTools adds the tools of the 2026-07-28 scenarios on capabilities,
// streams, logging and list changes. The list changes are f's: a trigger
// on one replica changes the lists of all.
func addEraTools(srv *ferry.Server, f *fixture) {
	tool := func(name, desc string, h ferry.ToolHandler) {
		srv.AddTool(ferry.Tool{Name: name, Description: desc, RawInputSchema: noArgs()}, h)
	}
	tool("test_missing_capability", "Needs sampling: a client that does not declare it gets -32021.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := ferry.CreateMessage(ctx, &ferry.CreateMessageParams{MaxTokens: 10,
				Messages: []ferry.PromptMessage{{Role: ferry.RoleUser, Content: ferry.Text("Say hi.")}}})
			if err != nil {
				return nil, err
			}
			return text("sampled: " + sampledText(r)), nil
		})
	tool("test_streaming_elicitation", "Asks the user something; in 2026-07-28 that is an input_required result, never a request on the stream.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := elicitAs(ctx, "confirm", "Continue?", okSchema)
			if err != nil {
				return nil, err
			}
			return text("action=" + r.Action), nil
		})
	tool("test_logging_tool", "Logs three messages at info; a request without a log level gets none.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			for _, m := range []string{"first", "second", "third"} {
				_ = ferry.NotifyLog(ctx, ferry.LevelInfo, "everything", m)
			}
			return text("logged"), nil
		})
	tool("test_trigger_tool_change", "Adds or removes test_dynamic_tool, so the tool list changes.",
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			if f.toggleTool() {
				return text("added test_dynamic_tool"), nil
			}
			return text("removed test_dynamic_tool"), nil
		})
	tool("test_trigger_prompt_change", "Adds or removes test_dynamic_prompt, so the prompt list changes.",
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			if f.togglePrompt() {
				return text("added test_dynamic_prompt"), nil
			}
			return text("removed test_dynamic_prompt"), nil
		})

}

// addInputRequiredTools adds the multi round-trip tools: each asks the
// client something and answers once the retry brings the answer.
func addInputRequiredTools(srv *ferry.Server) {
	tool := func(name, desc string, h ferry.ToolHandler) {
		srv.AddTool(ferry.Tool{Name: name, Description: desc, RawInputSchema: noArgs()}, h)
	}
	tool("test_input_required_result_elicitation", "Asks the user's name (key user_name), then greets.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := elicitAs(ctx, "user_name", "What is your name?", nameSchema("name"))
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("Hello, %v!", r.Content["name"])), nil
		})
	tool("test_input_required_result_sampling", "Asks the client's model a question (key capital_question).",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			r, err := sampleAs(ctx, "capital_question", "What is the capital of France?", 100)
			if err != nil {
				return nil, err
			}
			return text("The model said: " + sampledText(r)), nil
		})
	tool("test_input_required_result_list_roots", "Asks the client for its roots (key client_roots).",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			roots, err := ferry.ListRoots(ferry.WithInputKey(ctx, "client_roots"))
			if err != nil {
				return nil, err
			}
			uris := make([]string, len(roots))
			for i, r := range roots {
				uris[i] = r.URI
			}
			return text("Roots: " + strings.Join(uris, ", ")), nil
		})
	confirm := func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		r, err := elicitAs(ctx, "confirm", "Please confirm", okSchema)
		if err != nil {
			return nil, err
		}
		// The answer reached the handler only through a verified requestState
		// or this round's inputResponses: both were checked.
		return text(fmt.Sprintf("state-ok: confirmed=%v", r.Content["ok"])), nil
	}
	tool("test_input_required_result_request_state", "Asks for confirmation; the retry's requestState is verified.", confirm)
	tool("test_input_required_result_tampered_state", "Asks for confirmation; a tampered requestState is refused.", confirm)
	tool("test_input_required_result_multiple_inputs", "Asks an elicitation, a sampling and the roots at once.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			name, err1 := elicitAs(ctx, "user_name", "What is your name?", nameSchema("name"))
			greeting, err2 := sampleAs(ctx, "greeting", "Generate a greeting", 50)
			roots, err3 := ferry.ListRoots(ferry.WithInputKey(ctx, "client_roots"))
			if err := errors.Join(err1, err2, err3); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s %v (%d roots)", sampledText(greeting), name.Content["name"], len(roots))), nil
		})
	tool("test_input_required_result_multi_round", "Asks a name, then a colour, one round each.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			name, err := elicitAs(ctx, "step1", "Step 1: What is your name?", nameSchema("name"))
			if err != nil {
				return nil, err
			}
			color, err := elicitAs(ctx, "step2", "Step 2: What is your favorite color?", nameSchema("color"))
			if err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%v likes %v", name.Content["name"], color.Content["color"])), nil
		})
	tool("test_input_required_result_capabilities", "Asks only what the client declared it can answer.",
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			info, _ := ferry.CallInfoFromContext(ctx)
			var errs []error
			if info.ClientCapabilities.Sampling {
				_, err := sampleAs(ctx, "sampled", "Say something.", 20)
				errs = append(errs, err)
			}
			if info.ClientCapabilities.Elicitation {
				_, err := elicitAs(ctx, "elicited", "Say something.", nameSchema("text"))
				errs = append(errs, err)
			}
			if err := errors.Join(errs...); err != nil {
				return nil, err
			}
			return text("asked what the client can answer"), nil
		})

}

// addHeaderTools adds the tool whose argument clients mirror in a header.
func addHeaderTools(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "test_custom_headers", Description: "Echoes a region that clients mirror in the Mcp-Param-Region header.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","description":"Where to run.","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(_ context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			_ = json.Unmarshal(req.Arguments, &in)
			return text("region: " + in.Region), nil
		})
}
