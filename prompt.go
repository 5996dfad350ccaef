package ferry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Prompt describes a prompt: a message template a user picks.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Icons       []Icon
}

// PromptArgument is one argument of a prompt. Values are strings.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// GetPromptRequest is a prompts/get as a prompt handler sees it: the
// arguments are checked against the prompt's declared arguments first.
type GetPromptRequest struct {
	Name      string
	Arguments map[string]string
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    Role
	Content Content
}

// PromptResult is what a prompt handler returns.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptHandler builds a prompt's messages. A returned [*Error] reaches the
// client as is; any other error becomes -32603 with the details logged.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*PromptResult, error)

type promptEntry struct {
	prompt  Prompt
	handler PromptHandler
	json    []byte
}

func (e *promptEntry) key() string  { return e.prompt.Name }
func (e *promptEntry) wire() []byte { return e.json }

// AddPrompt registers a prompt, replacing any prompt of the same name.
func (s *Server) AddPrompt(p Prompt, h PromptHandler) {
	if p.Name == "" || h == nil {
		panic("ferry: AddPrompt needs a prompt name and a handler")
	}
	data, err := json.Marshal(struct {
		Name        string           `json:"name"`
		Title       string           `json:"title,omitempty"`
		Description string           `json:"description,omitempty"`
		Arguments   []PromptArgument `json:"arguments,omitempty"`
		Icons       []Icon           `json:"icons,omitempty"`
	}{p.Name, p.Title, p.Description, p.Arguments, p.Icons})
	if err != nil {
		panic(fmt.Sprintf("ferry: prompt %q: %v", p.Name, err))
	}
	s.mu.Lock()
	s.prompts.add(&promptEntry{prompt: p, handler: h, json: data})
	s.mu.Unlock()
	s.listChanged("notifications/prompts/list_changed")
}

// RemovePrompts removes the named prompts.
func (s *Server) RemovePrompts(names ...string) {
	removed := false
	s.mu.Lock()
	for _, n := range names {
		removed = s.prompts.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged("notifications/prompts/list_changed")
	}
}

// promptArgs checks prompts/get arguments against the declared ones: every
// value a string, none unknown, every required one present.
func promptArgs(p *Prompt, raw json.RawMessage) (map[string]string, error) {
	var in map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &in); err != nil {
			return nil, NewError(CodeInvalidParams, "prompt %q: arguments must be an object of strings", p.Name)
		}
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		known := false
		for _, a := range p.Arguments {
			known = known || a.Name == k
		}
		if !known {
			return nil, NewError(CodeInvalidParams, "prompt %q has no argument %q", p.Name, k)
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, NewError(CodeInvalidParams, "prompt %q: argument %q must be a string", p.Name, k)
		}
		out[k] = s
	}
	for _, a := range p.Arguments {
		if _, ok := out[a.Name]; a.Required && !ok {
			return nil, NewError(CodeInvalidParams, "prompt %q: argument %q is required", p.Name, a.Name)
		}
	}
	return out, nil
}

func (m *PromptMessage) appendJSON(b []byte) []byte {
	b = append(b, `{"role":`...)
	b = jsonrpc.AppendString(b, string(m.Role))
	b = append(b, `,"content":`...)
	if m.Content == nil {
		b = append(b, `{"type":"text","text":""}`...)
	} else {
		b = m.Content.appendJSON(b)
	}
	return append(b, '}')
}
