package ferry

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool describes a tool: what clients list. Name and Description are
// required in practice; InputSchema defaults to an object with no
// properties.
type Tool struct {
	// Name identifies the tool: 1 to 128 characters of A-Z a-z 0-9 _ - .
	Name string
	// Title is the tool's display name.
	Title string
	// Description tells the model what the tool does and when to use it.
	Description string
	// InputSchema is the JSON Schema of the arguments, an object schema.
	// If nil, the tool takes no arguments.
	InputSchema json.RawMessage
	// OutputSchema, if not nil, is the JSON Schema of the result's
	// structured content.
	OutputSchema json.RawMessage
	// Annotations hint at the tool's behaviour.
	Annotations *ToolAnnotations
	// Icons are images a client may show for the tool.
	Icons []Icon
	// Meta is sent as the tool's _meta member.
	Meta map[string]any
}

// ToolAnnotations are hints about a tool's behaviour. A nil hint means the
// protocol's default: not read-only, destructive, not idempotent, open world.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// CallToolRequest is a tools/call as a tool handler sees it.
type CallToolRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the arguments object as the client sent it, or nil.
	Arguments json.RawMessage
}

// ToolHandler runs a tool call. It returns a [*Result]; a result with
// IsError set is a failure the model reads. A returned [*Error] becomes a
// protocol error; any other error (and a panic) becomes an IsError result
// that masks the error behind a reference, with the whole error in the log.
// Handlers may run concurrently.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*Result, error)

type toolEntry struct {
	tool    Tool
	handler ToolHandler
	json    []byte
}

func (e *toolEntry) key() string  { return e.tool.Name }
func (e *toolEntry) wire() []byte { return e.json }

// wireTool is a tool as tools/list sends it.
type wireTool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         map[string]any   `json:"_meta,omitempty"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// AddTool registers a tool, replacing any tool of the same name. It panics
// if the tool has no name, no handler, or a schema that is not a JSON
// object: those are programming errors.
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if t.Name == "" || h == nil {
		panic("ferry: AddTool needs a tool name and a handler")
	}
	in := t.InputSchema
	if in == nil {
		in = emptyObjectSchema
	}
	if !isObject(in) || (t.OutputSchema != nil && !isObject(t.OutputSchema)) {
		panic(fmt.Sprintf("ferry: tool %q: schemas must be JSON objects", t.Name))
	}
	data, err := json.Marshal(wireTool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: in, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Icons: t.Icons, Meta: t.Meta})
	if err != nil {
		panic(fmt.Sprintf("ferry: tool %q: %v", t.Name, err))
	}
	s.mu.Lock()
	s.tools.add(&toolEntry{tool: t, handler: h, json: data})
	s.mu.Unlock()
	s.listChanged("notifications/tools/list_changed")
}

// RemoveTools removes the named tools; names that are not registered are
// ignored.
func (s *Server) RemoveTools(names ...string) {
	removed := false
	s.mu.Lock()
	for _, n := range names {
		removed = s.tools.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged("notifications/tools/list_changed")
	}
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}
