package client

import (
	"context"
	"encoding/json"
	"fmt"
)

// list reads every page of a list method, whose items are in member key.
func list[T any](ctx context.Context, c *Client, method, key string) ([]T, error) {
	var all []T
	cursor := ""
	seen := map[string]bool{}
	for n := 0; ; n++ {
		if n == c.opts.Limits.MaxPages {
			return nil, fmt.Errorf("client: %s has more than %d pages", method, c.opts.Limits.MaxPages)
		}
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var res map[string]json.RawMessage
		if err := c.Call(ctx, method, params, &res); err != nil {
			return nil, err
		}
		var items []T
		if raw, ok := res[key]; ok {
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, fmt.Errorf("client: decoding the %s result: %w", method, err)
			}
		}
		all = append(all, items...)
		cursor = ""
		if raw, ok := res["nextCursor"]; ok {
			if err := json.Unmarshal(raw, &cursor); err != nil {
				return nil, fmt.Errorf("client: the %s nextCursor is not a string: %w", method, err)
			}
		}
		if cursor == "" {
			return all, nil
		}
		if seen[cursor] {
			return nil, fmt.Errorf("client: %s returned the cursor %q twice", method, cursor)
		}
		seen[cursor] = true
	}
}

// ListTools returns every tool, reading each page of tools/list.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	tools, err := list[Tool](ctx, c, "tools/list", "tools")
	if err == nil && c.modern {
		c.learnHeaders(tools)
	}
	return tools, err
}

// CallTool calls a tool with args (marshalled to a JSON object; nil means
// none). A tool that fails gives a result with IsError set, not an error.
func (c *Client) CallTool(ctx context.Context, name string, args any) (*ToolResult, error) {
	params := rawParams{"name": jsonString(name)}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("client: tool arguments: %w", err)
		}
		if string(raw) != "null" {
			params["arguments"] = raw
		}
	}
	var res ToolResult
	err := c.Call(ctx, "tools/call", params, &res)
	if err != nil && c.modern && c.headersUnknown(name, err) {
		// The tool mirrors arguments into headers the client has not
		// learnt: learn them from tools/list and try once more.
		if _, lerr := c.ListTools(ctx); lerr == nil {
			err = c.Call(ctx, "tools/call", params, &res)
		}
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// ListPrompts returns every prompt, reading each page of prompts/list.
func (c *Client) ListPrompts(ctx context.Context) ([]Prompt, error) {
	return list[Prompt](ctx, c, "prompts/list", "prompts")
}

// GetPrompt returns a prompt filled with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	var res PromptResult
	if err := c.Call(ctx, "prompts/get", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListResources returns every resource, reading each page of
// resources/list.
func (c *Client) ListResources(ctx context.Context) ([]Resource, error) {
	return list[Resource](ctx, c, "resources/list", "resources")
}

// ListResourceTemplates returns every resource template, reading each page
// of resources/templates/list.
func (c *Client) ListResourceTemplates(ctx context.Context) ([]ResourceTemplate, error) {
	return list[ResourceTemplate](ctx, c, "resources/templates/list", "resourceTemplates")
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) (*ReadResult, error) {
	var res ReadResult
	if err := c.Call(ctx, "resources/read", map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of an argument of a prompt or a resource
// template.
func (c *Client) Complete(ctx context.Context, req *CompleteRequest) (*CompleteResult, error) {
	ref := map[string]string{"type": req.RefType}
	if req.Name != "" {
		ref["name"] = req.Name
	}
	if req.URI != "" {
		ref["uri"] = req.URI
	}
	params := map[string]any{
		"ref":      ref,
		"argument": map[string]string{"name": req.Argument, "value": req.Value},
	}
	if len(req.Context) > 0 {
		params["context"] = map[string]any{"arguments": req.Context}
	}
	var res struct {
		Completion CompleteResult `json:"completion"`
	}
	if err := c.Call(ctx, "completion/complete", params, &res); err != nil {
		return nil, err
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res.Completion, nil
}

// Ping checks that a legacy server answers. The modern era has no ping:
// there it sends server/discover.
func (c *Client) Ping(ctx context.Context) error {
	if c.modern {
		return c.Call(ctx, "server/discover", nil, nil)
	}
	return c.Call(ctx, "ping", nil, nil)
}
