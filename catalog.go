package ferry

import (
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

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
