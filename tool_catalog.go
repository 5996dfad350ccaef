package ferry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ToolInfo is what the catalog knows of a tool: its hints, resolved to the
// values clients are sent, and the scopes a caller needs. It is computed
// once, when the tool is registered; every call's [CallToolRequest.Tool]
// and every [ServerOptions.Visible] question shares it, so treat its
// Scopes as read-only.
type ToolInfo struct {
	// Name and Title are the tool's.
	Name  string
	Title string
	// ReadOnly is [Tool.ReadOnly].
	ReadOnly bool
	// Destructive, Idempotent and OpenWorld are the hints as sent, the
	// protocol's defaults applied: a tool that is not ReadOnly is
	// Destructive unless [Tool.Additive]; a ReadOnly one is Idempotent;
	// OpenWorld unless [Tool.ClosedWorld].
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// Scopes and Roles are the tool's [Tool.Scopes] and [Tool.Roles].
	Scopes []string
	Roles  []string
	// Groups are the tool's groups: its [Tool.Groups], or those derived
	// from its handler's package.
	Groups []string
	// Timeout is the call's deadline: the tool's [Tool.Timeout], or else
	// the server's [Limits.CallTimeout]; zero when calls have none but
	// their transport's.
	Timeout time.Duration
	// MaxResultBytes is the bound on the tool's result: its
	// [Tool.MaxResultBytes], or else the server's [Limits.MaxResultBytes];
	// zero when it has none (a client may still state one).
	MaxResultBytes int
	// Confirm says a call waits for a person to confirm it (see
	// [ServerOptions.Confirm] and [Tool.Confirm]).
	Confirm bool
}

// Writes reports whether the tool may change anything: an approval step
// gates the tools that write.
func (t ToolInfo) Writes() bool { return !t.ReadOnly }

func (t *Tool) info() ToolInfo {
	return ToolInfo{
		Name:        t.Name,
		Title:       t.Title,
		ReadOnly:    t.ReadOnly,
		Destructive: !t.ReadOnly && !t.Additive,
		Idempotent:  t.ReadOnly || t.Idempotent,
		OpenWorld:   !t.ClosedWorld,
		Scopes:      slices.Clip(slices.Clone(t.Scopes)),
		Roles:       slices.Clip(slices.Clone(t.Roles)),
		Groups:      slices.Clip(slices.Clone(t.Groups)),
	}
}

// Catalog returns what the server knows of its tools now, in name order,
// hidden tools included (those a caller lacks the requirements for, and
// on a [ServerOptions.ReadOnly] server those that write): an HTTP
// authorizer reads whether the tool a request names writes (see
// [ParseToolCalls]) from the same registry clients are served, and
// [Server.Allows] says whether the server itself would serve the call.
// Tool middleware needs no catalog: the call's [CallToolRequest.Tool]
// holds the same [ToolInfo].
func (s *Server) Catalog() Catalog {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := Catalog{tools: make([]ToolInfo, len(s.tools.sorted))}
	for i, e := range s.tools.sorted {
		c.tools[i] = e.info
	}
	return c
}

// Catalog is a snapshot of a server's tools. The zero value is empty.
type Catalog struct {
	tools []ToolInfo // in name order
}

// Tools returns the tools in name order. The slice is the caller's; the
// Scopes of its entries are shared with the server and must not be
// modified.
func (c Catalog) Tools() []ToolInfo { return append([]ToolInfo(nil), c.tools...) }

// Lookup returns the named tool.
func (c Catalog) Lookup(name string) (ToolInfo, bool) {
	i, ok := slices.BinarySearchFunc(c.tools, name, func(t ToolInfo, name string) int { return strings.Compare(t.Name, name) })
	if !ok {
		return ToolInfo{}, false
	}
	return c.tools[i], true
}

// visibleTool reports whether the caller of ctx may see the tool (see
// [Server.toolAccess]). A hidden tool is left out of tools/list and
// answers tools/call exactly as an unknown one does.
func (s *Server) visibleTool(ctx context.Context, t *ToolInfo) bool {
	return inView(ctx, t.Groups) && s.toolAccess(ctx, t) != accessHidden
}

// ParseToolCalls returns the tools a JSON-RPC request body calls, in
// order: none for a body that calls no tool, several for a batch. An
// authorizer in front of the HTTP handler reads each with
// [Catalog.Lookup] to decide, without a second list of which tools
// write. It reads the body as the handler does: a body it cannot read,
// or a call whose params the handler refuses (a member twice, or a case
// variant of one, which another reader could take for the member), is an
// error; the authorizer should refuse it (the handler would too).
func ParseToolCalls(body []byte) ([]string, error) {
	names, err := toolCalls(body)
	if err != nil {
		return nil, fmt.Errorf("ferry: reading the tool calls: %w", err)
	}
	return names, nil
}
