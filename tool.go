package ferry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Tool describes a tool: what clients list, and the hints an approval step
// reads. Name and Description are required (see [Server.Check]).
type Tool struct {
	// Name identifies the tool: 1 to 128 characters of A-Z a-z 0-9 _ - .
	Name string
	// Title is the tool's display name.
	Title string
	// Description tells the model what the tool does and when to use it.
	Description string

	// ReadOnly says the tool does not change its environment. A read-only
	// tool is also reported idempotent and not destructive.
	ReadOnly bool
	// Destructive says whether a tool that writes may destroy or overwrite
	// data. If [Unset], the protocol's cautious default applies: a tool that
	// is not ReadOnly is reported destructive.
	Destructive Hint
	// Idempotent says that calling the tool again with the same arguments
	// has no further effect. If false, it is reported not idempotent.
	Idempotent bool
	// OpenWorld says whether the tool reaches an open set of outside
	// entities (the web, another company's API). If [Unset], it is reported
	// open, the protocol's cautious default.
	OpenWorld Hint

	// InputSchema is the JSON Schema of the arguments, an object schema, for
	// tools added with [Server.AddTool]. If nil, {"type":"object"} is sent,
	// which accepts any arguments.
	// [AddTool] derives it from the input type instead.
	InputSchema json.RawMessage
	// OutputSchema, if not nil, is the JSON Schema of the result's
	// structured content. [AddTool] derives it from the output type.
	OutputSchema json.RawMessage
	// VerbatimSchema sends raw schemas as they are, skipping the check that
	// they are portable (no $ref, no true subschemas), for clients known to
	// accept them.
	VerbatimSchema bool

	// Icons are images a client may show for the tool.
	Icons []Icon
	// Meta is sent as the tool's _meta member.
	Meta map[string]any
}

// Hint is a tool hint whose protocol default is true, so that "not set"
// differs from "no".
type Hint uint8

// The values of a [Hint].
const (
	Unset Hint = iota // the protocol's default applies
	Yes
	No
)

// String returns "unset", "yes" or "no".
func (h Hint) String() string {
	switch h {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unset"
}

func (h Hint) or(def bool) bool {
	switch h {
	case Yes:
		return true
	case No:
		return false
	}
	return def
}

// ToolInfo is what the catalog knows of a tool: its hints, resolved to the
// values clients are sent.
type ToolInfo struct {
	Name        string
	Title       string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// Writes reports whether the tool may change anything: an approval step
// gates the tools that write.
func (t ToolInfo) Writes() bool { return !t.ReadOnly }

func (t *Tool) info() ToolInfo {
	return ToolInfo{
		Name:        t.Name,
		Title:       t.Title,
		ReadOnly:    t.ReadOnly,
		Destructive: !t.ReadOnly && t.Destructive.or(true),
		Idempotent:  t.ReadOnly || t.Idempotent,
		OpenWorld:   t.OpenWorld.or(true),
	}
}

// CallToolRequest is a tools/call as a tool handler sees it.
type CallToolRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the arguments object as the client sent it, or nil.
	Arguments json.RawMessage
}

// ToolHandler runs a tool call. It returns a [*Result]; a result with
// IsError set is a failure the model reads. A returned refusal ([NotFound],
// [Refuse] and the like) becomes an IsError result reading "code: message";
// a returned [*Error] becomes a protocol error; any other error (and a
// panic) is offered to [ServerOptions.OnToolError], and otherwise becomes an
// IsError result that masks it behind a reference, with the whole error in
// the log. Handlers may run concurrently.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*Result, error)

// ToolMiddleware wraps every tool call. Middleware listed first in
// [ServerOptions.ToolMiddleware] runs first.
type ToolMiddleware func(next ToolHandler) ToolHandler

type toolEntry struct {
	tool    Tool
	handler ToolHandler // wrapped in the middleware chain
	json    []byte
}

func (e *toolEntry) key() string  { return e.tool.Name }
func (e *toolEntry) wire() []byte { return e.json }

// wireTool is a tool as tools/list sends it.
type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  wireAnnotations `json:"annotations"`
	Icons        []Icon          `json:"icons,omitempty"`
	Meta         map[string]any  `json:"_meta,omitempty"`
}

// wireAnnotations sends every hint explicitly, so that no client has to
// guess a default.
type wireAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// AddTool registers a tool with a handler that reads raw arguments; [AddTool]
// (the function) is the typed form. Problems with the tool (its name, its
// description, its schemas, a second tool of the same name) are reported by
// [Server.Check]. It panics if h is nil.
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if h == nil {
		panic("ferry: AddTool needs a handler")
	}
	s.addTool(t, h)
}

func (s *Server) addTool(t Tool, h ToolHandler) {
	in := t.InputSchema
	if in == nil {
		in = emptyObjectSchema
	}
	info := t.info()
	data, err := json.Marshal(wireTool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: in, OutputSchema: t.OutputSchema, Icons: t.Icons, Meta: t.Meta,
		Annotations: wireAnnotations{Title: t.Title, ReadOnlyHint: info.ReadOnly, DestructiveHint: info.Destructive,
			IdempotentHint: info.Idempotent, OpenWorldHint: info.OpenWorld}})
	if err != nil {
		s.problem(fmt.Errorf("tool %q: its schemas are not valid JSON: %w", t.Name, err))
		return
	}
	for _, p := range checkTool(&t) {
		s.problem(p)
	}
	h = s.wrapTool(h)
	s.mu.Lock()
	if _, dup := s.tools.get(t.Name); dup {
		s.problems = append(s.problems, fmt.Errorf("tool %q is registered twice (remove the first with RemoveTools to replace it)", t.Name))
	}
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

// Catalog returns what the server knows of its tools now, in name order: an
// HTTP authorizer reads whether the tool a request names writes (see
// [ParseToolCall]) from the same registry clients are served.
func (s *Server) Catalog() Catalog {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := Catalog{tools: make([]ToolInfo, len(s.tools.sorted))}
	for i, e := range s.tools.sorted {
		c.tools[i] = e.tool.info()
	}
	return c
}

// Catalog is a snapshot of a server's tools. The zero value is empty.
type Catalog struct {
	tools []ToolInfo // in name order
}

// Tools returns the tools in name order. The slice is the caller's.
func (c Catalog) Tools() []ToolInfo { return append([]ToolInfo(nil), c.tools...) }

// Lookup returns the named tool.
func (c Catalog) Lookup(name string) (ToolInfo, bool) {
	lo, hi := 0, len(c.tools)
	for lo < hi {
		mid := (lo + hi) / 2
		switch n := c.tools[mid].Name; {
		case n == name:
			return c.tools[mid], true
		case n < name:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return ToolInfo{}, false
}

// ParseToolCall tells which tool a JSON-RPC request body calls: the name,
// and true, when the body is one tools/call request. A body that is a
// batch (allowed in 2025-03-26 sessions) may call several tools and
// reports false: an authorizer should use [ParseToolCalls], which reads
// batches too.
func ParseToolCall(body []byte) (string, bool) {
	if jsonrpc.IsBatch(body) {
		return "", false
	}
	names, err := ParseToolCalls(body)
	if err != nil || len(names) != 1 {
		return "", false
	}
	return names[0], true
}

// ParseToolCalls returns the tools a JSON-RPC request body calls, in
// order: none for a body that calls no tool, several for a batch. An
// authorizer in front of the HTTP handler reads each with
// [Catalog.Lookup] to decide, without a second list of which tools
// write. A body it cannot read is an error; the authorizer should refuse
// it (the handler would too).
func ParseToolCalls(body []byte) ([]string, error) {
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var calls []call
	if jsonrpc.IsBatch(body) {
		if err := json.Unmarshal(body, &calls); err != nil {
			return nil, fmt.Errorf("ferry: reading the tool calls of a batch: %w", err)
		}
	} else {
		var c call
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, fmt.Errorf("ferry: reading the tool call: %w", err)
		}
		calls = []call{c}
	}
	var names []string
	for _, c := range calls {
		if c.Method == "tools/call" {
			names = append(names, c.Params.Name)
		}
	}
	return names, nil
}
