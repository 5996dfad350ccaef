package ferry

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// This file holds discovery mode: tools/list carries a search tool, a call
// tool and the pinned tools, instead of every tool, so that a catalog of
// hundreds of tools costs the model a few hundred tokens until it needs
// one. The list is the same for every session and changes only when the
// catalog does, which both protocol eras allow.

// DiscoveryOptions turns on discovery mode (see [ServerOptions.Discovery]).
type DiscoveryOptions struct {
	// Pinned names tools that stay listed besides the search and call
	// tools: the few a model needs at once. A pinned tool the caller may
	// not see is not listed either.
	Pinned []string
	// SearchTool and CallTool name the two tools. If empty,
	// "search_tools" and "call_tool". A registered tool of either name
	// is a problem [Server.Check] reports.
	SearchTool, CallTool string
}

const (
	defaultSearchTool = "search_tools"
	defaultCallTool   = "call_tool"
)

// discovery is a server's discovery mode: its two tools and the pinned
// names. It is fixed at NewServer.
type discovery struct {
	search, call *toolEntry
	pinned       []string // sorted
	index        searchIndex
}

// newDiscovery returns the discovery mode opts describe, or nil.
func newDiscovery(s *Server, opts *DiscoveryOptions) *discovery {
	if opts == nil {
		return nil
	}
	d := &discovery{pinned: slices.Sorted(slices.Values(opts.Pinned))}
	searchName, callName := opts.SearchTool, opts.CallTool
	if searchName == "" {
		searchName = defaultSearchTool
	}
	if callName == "" {
		callName = defaultCallTool
	}
	d.search = metaTool(s, Tool{Name: searchName, Title: "Search tools", ReadOnly: true, ClosedWorld: true, Idempotent: true,
		Description: "Finds the tools of this server that fit a task. Describe the task in a few words; " +
			"the best matches come back with their descriptions and input schemas. Call one with " + callName + ".",
	}, searchSchema, s.searchTools)
	d.call = metaTool(s, Tool{Name: callName, Title: "Call a tool",
		Description: "Calls a tool found with " + searchName + ", by its name, with its arguments. " +
			"It may call a tool that writes or deletes, so it is declared with the most cautious hints: " +
			"read the tool's own description and hints before calling it.",
	}, callSchema, func(context.Context, *CallToolRequest) (*ToolResult, error) {
		// Never reached: resolve serves the named tool instead.
		return NewErrorResult("call_tool: no tool named"), nil
	})
	s.AddCheck(func() error { return d.check(s) })
	return d
}

// SetDiscovery turns on discovery mode after tools are registered, for a
// program that decides by the size of its catalog (ferry serve does, above
// a tool count): as [ServerOptions.Discovery] would have, with opts. A nil
// opts, a server already in discovery mode, and a second call do nothing.
// Call it before the server serves its first request.
func (s *Server) SetDiscovery(opts *DiscoveryOptions) {
	if opts == nil {
		return
	}
	s.mu.RLock()
	on := s.discovery != nil
	s.mu.RUnlock()
	if on {
		return
	}
	d := newDiscovery(s, opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.discovery != nil {
		return
	}
	for _, e := range s.tools.sorted {
		e.doc = newSearchDoc(&e.tool, e.in, e.info.Groups)
	}
	s.discovery = d
}

var (
	searchSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"The task, in a few words.","minLength":1,"maxLength":500},` +
		`"limit":{"type":"integer","description":"At most this many tools (default 5).","minimum":1,"maximum":20}},` +
		`"required":["query"],"additionalProperties":false}`)
	callSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","description":"The tool's name, as search_tools gave it."},` +
		`"arguments":{"type":"object","description":"The tool's arguments, as its input schema says."}},` +
		`"required":["name"],"additionalProperties":false}`)
)

// metaTool returns the entry of one of the discovery mode's tools.
func metaTool(s *Server, t Tool, in json.RawMessage, h ToolHandler) *toolEntry {
	info := t.info()
	data, _ := json.Marshal(wireTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: in, //nolint:errchkjson // constant members
		Annotations: wireAnnotations{Title: t.Title, ReadOnlyHint: info.ReadOnly, DestructiveHint: info.Destructive,
			IdempotentHint: info.Idempotent, OpenWorldHint: info.OpenWorld}})
	return &toolEntry{tool: t, info: info, handler: s.wrapTool(h), json: data, in: in}
}

// check reports a registered tool that has the name of a discovery tool.
func (d *discovery) check(s *Server) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, name := range []string{d.search.tool.Name, d.call.tool.Name} {
		if _, ok := s.tools.get(name); ok {
			return &checkError{"tool " + quote(name) + " has the name of a discovery mode tool: rename it, or set DiscoveryOptions.SearchTool and CallTool"}
		}
	}
	return nil
}

// checkError is a problem found by a check, as its sentence.
type checkError struct{ msg string }

func (e *checkError) Error() string { return e.msg }

func quote(s string) string { return string(jsontext.AppendString(nil, s)) }

// meta returns the discovery tool named name, or nil.
func (d *discovery) meta(name string) *toolEntry {
	switch name {
	case d.search.tool.Name:
		return d.search
	case d.call.tool.Name:
		return d.call
	}
	return nil
}

// callArgs are the arguments of the call tool.
type callArgs struct {
	Name      string
	Arguments json.RawMessage
}

// parseCallArgs reads the call tool's arguments, raw as the decoder
// checked them: an object of a name, a string, and arguments, an object
// or null, each once and nothing else. It reads them in place, without
// reflection, since every call through the call tool pays for it.
func parseCallArgs(raw json.RawMessage) (callArgs, bool) {
	var a callArgs
	if jsontext.TypeOf(raw) != jsontext.Object {
		return a, false
	}
	var named bool
	ok := jsontext.EachMember(raw, func(key, value []byte) bool {
		switch string(key) {
		case `"name"`:
			if named || jsontext.TypeOf(value) != jsontext.String {
				return false
			}
			a.Name, named = jsontext.Unquote(value), true
		case `"arguments"`:
			if a.Arguments != nil {
				return false
			}
			switch jsontext.TypeOf(value) {
			case jsontext.Object:
				a.Arguments = json.RawMessage(value)
			case jsontext.Null:
				a.Arguments = json.RawMessage{}
			default:
				return false
			}
		default:
			return false
		}
		return true
	})
	if len(a.Arguments) == 0 {
		a.Arguments = nil
	}
	return a, ok && a.Name != ""
}

// resolveMeta resolves a tools/call of a discovery tool, and reports
// whether name was one. A call of the call tool becomes a call of the
// tool it names, with that tool's arguments: from here on the request is
// that call (its access, limits, timeout, validation, observers and call
// log), and only the Mcp-Name check reads the name the client sent
// ([target.viaCall]). The caller holds s.mu.
func (s *Server) resolveMeta(r *request) bool {
	d := s.discovery
	e := d.meta(r.target.name)
	if e == nil {
		return false
	}
	if e != d.call {
		r.target.tool = e
		return true
	}
	a, ok := parseCallArgs(r.params.Arguments)
	if !ok {
		r.target.tool = e
		r.err = NewError(CodeInvalidParams, "%s needs the arguments {\"name\": a tool's name, \"arguments\": its arguments object}", e.tool.Name)
		return true
	}
	r.target.viaCall, r.target.name, r.params.Arguments = true, a.Name, a.Arguments
	if d.meta(a.Name) != nil {
		r.err = unknownTool(a.Name) // the discovery tools are not called through themselves
		return true
	}
	return false
}

// listDiscovery answers tools/list in discovery mode: the two discovery
// tools and the pinned tools the caller may see, in one page.
func (s *Server) listDiscovery(ctx context.Context, r *request, b []byte) ([]byte, error) {
	if _, err := s.readCursor("tools", r.params.Cursor); err != nil {
		return b, err
	}
	d := s.discovery
	b = appendKey(b, "tools")
	b = append(b, '[')
	b = append(b, d.search.json...)
	b = append(b, ',')
	b = append(b, d.call.json...)
	s.mu.RLock()
	private := s.opts.Visible != nil
	for _, name := range d.pinned {
		e, ok := s.tools.get(name)
		if !ok || !r.peer.groups.admits(e.info.Groups) || !s.visibleTool(ctx, &e.info) {
			continue
		}
		private = private || e.guarded()
		b = append(b, ',')
		b = append(b, e.json...)
	}
	s.mu.RUnlock()
	b = append(b, ']')
	if r.modern {
		b = appendCacheable(b, private)
	}
	return b, nil
}
