package ferry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// This file holds legacy toolsets: a tool with which a legacy session
// chooses the groups it is served, as Benevia's FilterTools does. The
// session's lists change as a side effect of a call, which only the
// legacy eras allow: the tool is never offered to a 2026-07-28 request,
// whose lists are a function of the URL alone (see [HTTPOptions.Groups]).

// ToolsetOptions turns on legacy toolsets (see [ServerOptions.Toolsets]).
type ToolsetOptions struct {
	// Tool names the tool that lists the groups and enables or disables
	// them; "toolsets" if empty. A registered tool of that name is a
	// problem [Server.Check] reports.
	Tool string
	// Enabled are the groups a session is served before it chooses:
	// none if empty, so that a session starts with the toolset tool and
	// the entries that belong to no group.
	Enabled []string
}

const defaultToolsetTool = "toolsets"

// maxToolsetChange bounds the group names one call of the toolset tool
// may enable or disable.
const maxToolsetChange = 256

// toolsets is a server's legacy toolsets, fixed at NewServer.
type toolsets struct {
	entry   *toolEntry
	enabled []string // sorted, at the start of a session
}

// newToolsets returns the toolsets opts describe, or nil.
func newToolsets(s *Server, opts *ToolsetOptions) *toolsets {
	if opts == nil {
		return nil
	}
	t := &toolsets{enabled: slices.Compact(slices.Sorted(slices.Values(opts.Enabled)))}
	name := opts.Tool
	if name == "" {
		name = defaultToolsetTool
	}
	t.entry = metaTool(s, Tool{Name: name, Title: "Choose toolsets", ReadOnly: true, Idempotent: true, ClosedWorld: true,
		Description: "Lists this server's groups of tools (toolsets) and which are enabled in this session, and " +
			"enables or disables them: the session's tool, prompt and resource lists then change. " +
			"Call it without arguments to see the groups; enable the ones the task needs.",
	}, toolsetSchema, s.chooseToolsets)
	s.AddCheck(func() error { return t.check(s) })
	return t
}

var toolsetSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"enable":{"type":"array","items":{"type":"string"},"maxItems":256,"description":"Groups to enable in this session."},` +
	`"disable":{"type":"array","items":{"type":"string"},"maxItems":256,"description":"Groups to disable in this session."}},` +
	`"additionalProperties":false}`)

// check reports a registered tool that has the toolset tool's name, and
// an invalid group name in Enabled.
func (t *toolsets) check(s *Server) error {
	var problems []string
	for _, g := range t.enabled {
		if err := ValidGroupName(g); err != nil {
			problems = append(problems, "ToolsetOptions.Enabled: "+strings.TrimPrefix(err.Error(), "ferry: "))
		}
	}
	s.mu.RLock()
	_, taken := s.tools.get(t.entry.tool.Name)
	s.mu.RUnlock()
	if taken {
		problems = append(problems, "tool "+quote(t.entry.tool.Name)+" has the name of the toolset tool: rename it, or set ToolsetOptions.Tool")
	}
	if problems == nil {
		return nil
	}
	return &checkError{strings.Join(problems, "; ")}
}

// view returns the groups a session is served, given what it chose
// (chosen says it did): entries of no group are always served, which the
// empty name in the set stands for.
func (t *toolsets) view(enabled []string, chosen bool) *groupSet {
	if !chosen {
		enabled = t.enabled
	}
	v := make(groupSet, 0, len(enabled)+1)
	v = append(append(v, ""), enabled...)
	return &v
}

// narrow returns the groups an endpoint of the groups v serves to a
// session whose toolsets are the set session: those in both (v nil
// serves every group).
func (v *groupSet) narrow(session *groupSet) *groupSet {
	if v == nil {
		return session
	}
	out := make(groupSet, 0, len(*v))
	for _, g := range *v {
		if slices.Contains(*session, g) {
			out = append(out, g)
		}
	}
	return &out
}

// toolsetSession is the state of a legacy session that chooses its
// toolsets, as a request of it holds it: the session's own, and the
// groups of the endpoint the request came through (its groups are then
// those of them the session enabled).
type toolsetSession struct {
	legacyState
	endpoint *groupSet
}

// toolsetsOf returns the state of r's session if it chooses its toolsets,
// or nil.
func toolsetsOf(r *request) *toolsetSession {
	ts, _ := r.peer.state.(*toolsetSession)
	return ts
}

// toolsetState is a legacy session that keeps its toolsets: a stored
// HTTP session or a stdio connection.
type toolsetState interface {
	// chooseToolsets replaces the groups the session enabled with what f
	// returns, given them and whether the session chose before. f may be
	// called more than once.
	chooseToolsets(ctx context.Context, f func(enabled []string, chosen bool) []string) error
}

func (s *storedState) chooseToolsets(ctx context.Context, f func([]string, bool) []string) error {
	return s.update(ctx, func(st *SessionState) error {
		st.Toolsets, st.ToolsetsChosen = f(st.Toolsets, st.ToolsetsChosen), true
		return nil
	})
}

func (c *streamConn) chooseToolsets(_ context.Context, f func([]string, bool) []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cur []string
	if c.toolsets != nil {
		cur = *c.toolsets
	}
	next := f(cur, c.toolsets != nil)
	c.toolsets = &next
	return nil
}

// connToolsets returns the groups the stdio connection c is served, nil
// without toolsets. The caller holds c.mu.
func (s *Server) connToolsets(c *streamConn) *groupSet {
	if s.toolsets == nil {
		return nil
	}
	if c.toolsets == nil {
		return s.toolsets.view(nil, false)
	}
	return s.toolsets.view(*c.toolsets, true)
}

// storedToolsets returns the groups the stored session st is served, nil
// without toolsets.
func (s *Server) storedToolsets(st *SessionState) *groupSet {
	if s.toolsets == nil {
		return nil
	}
	return s.toolsets.view(st.Toolsets, st.ToolsetsChosen)
}

// resolveToolset resolves a tools/call of the toolset tool, and reports
// whether name was it. Only a request whose session chooses its toolsets
// finds it: to any other, and to every 2026-07-28 request, it does not
// exist. The caller holds s.mu.
func (s *Server) resolveToolset(r *request) bool {
	if r.target.name != s.toolsets.entry.tool.Name || toolsetsOf(r) == nil {
		return false
	}
	r.target.tool = s.toolsets.entry
	return true
}

// listToolset puts the toolset tool first in the first page of a
// tools/list that begins at start in b, for a session that chooses its
// toolsets.
func (s *Server) listToolset(r *request, b []byte, start int) []byte {
	if r.params.Cursor != nil && *r.params.Cursor != "" {
		return b
	}
	open := bytes.IndexByte(b[start:], '[')
	if open < 0 {
		return b
	}
	i := start + open + 1
	ins := s.toolsets.entry.json
	if i < len(b) && b[i] != ']' {
		ins = append(slices.Clip(ins), ',')
	}
	return slices.Insert(b, i, ins...)
}

// groupView is a group as the toolset tool lists it.
type groupView struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Tools       int    `json:"tools"`
	Prompts     int    `json:"prompts"`
	Resources   int    `json:"resources"`
	Enabled     bool   `json:"enabled"`
}

// visibleGroups returns the groups of the entries the caller of ctx sees
// through the endpoint of the groups v, with their counts, in name order.
// A group of hidden entries only is not there, nor counted.
func (s *Server) visibleGroups(ctx context.Context, v *groupSet) []groupView {
	byName := map[string]*groupView{}
	add := func(groups []string, field func(*groupView) *int) {
		for _, g := range groups {
			if v != nil && !slices.Contains(*v, g) {
				continue
			}
			gv := byName[g]
			if gv == nil {
				gv = &groupView{Name: g, Description: s.groupDocs[g]}
				byName[g] = gv
			}
			*field(gv)++
		}
	}
	tools := func(g *groupView) *int { return &g.Tools }
	prompts := func(g *groupView) *int { return &g.Prompts }
	resources := func(g *groupView) *int { return &g.Resources }
	s.mu.RLock()
	for _, e := range s.tools.sorted {
		if len(e.info.Groups) > 0 && (!e.hideable || s.toolAccess(ctx, &e.info) != accessHidden) {
			add(e.info.Groups, tools)
		}
	}
	for _, e := range s.prompts.sorted {
		if len(e.prompt.Groups) > 0 && s.allowsEntry(ctx, e.prompt.Scopes, e.prompt.Roles) {
			add(e.prompt.Groups, prompts)
		}
	}
	for _, e := range s.resources.sorted {
		if len(e.res.Groups) > 0 && s.allowsEntry(ctx, e.res.Scopes, e.res.Roles) {
			add(e.res.Groups, resources)
		}
	}
	for _, e := range s.templates.sorted {
		if len(e.tmpl.Groups) > 0 && s.allowsEntry(ctx, e.tmpl.Scopes, e.tmpl.Roles) {
			add(e.tmpl.Groups, resources)
		}
	}
	s.mu.RUnlock()
	out := make([]groupView, 0, len(byName))
	for _, g := range byName {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b groupView) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// chooseToolsets is the toolset tool's handler: it enables and disables
// the groups named, among those the caller sees through its endpoint, in
// the session, tells the client its lists changed if they did, and lists
// the groups.
func (s *Server) chooseToolsets(ctx context.Context, req *CallToolRequest) (*ToolResult, error) {
	r := requestFrom(ctx)
	var ts *toolsetSession
	var st toolsetState
	if r != nil {
		if ts = toolsetsOf(r); ts != nil {
			st, _ = ts.legacyState.(toolsetState)
		}
	}
	if st == nil {
		return NewErrorResult("toolsets are chosen only in a legacy session that keeps state"), nil
	}
	var in struct {
		Enable  []string `json:"enable"`
		Disable []string `json:"disable"`
	}
	dec := json.NewDecoder(bytes.NewReader(req.Arguments))
	dec.DisallowUnknownFields()
	if len(req.Arguments) > 0 {
		if err := dec.Decode(&in); err != nil || len(in.Enable) > maxToolsetChange || len(in.Disable) > maxToolsetChange {
			return NewErrorResult("invalid arguments: give enable and disable, each a list of at most 256 group names, or nothing to list the groups"), nil
		}
	}
	groups := s.visibleGroups(ctx, ts.endpoint)
	known := func(name string) bool {
		_, ok := slices.BinarySearchFunc(groups, name, func(g groupView, n string) int { return strings.Compare(g.Name, n) })
		return ok
	}
	var unknown []string
	for _, g := range slices.Concat(in.Enable, in.Disable) {
		if !known(g) {
			unknown = append(unknown, quoteGroup(g))
		}
	}
	if unknown != nil {
		names := make([]string, len(groups))
		for i, g := range groups {
			names[i] = g.Name
		}
		return NewErrorResult("no group named " + strings.Join(unknown, ", ") + "; the groups are: " + strings.Join(names, ", ")), nil
	}
	// The session's groups as it joined the request: those of the
	// endpoint it enabled (an endpoint's group is enabled iff it is here).
	enabled := slices.DeleteFunc(slices.Clone(*r.peer.groups), func(g string) bool { return g == "" })
	if len(in.Enable)+len(in.Disable) > 0 {
		var before, after []string
		err := st.chooseToolsets(ctx, func(cur []string, chosen bool) []string {
			if !chosen {
				cur = s.toolsets.enabled
			}
			before = cur
			next := slices.DeleteFunc(slices.Clone(cur), func(g string) bool { return slices.Contains(in.Disable, g) })
			for _, g := range in.Enable {
				if !slices.Contains(in.Disable, g) {
					next = append(next, g)
				}
			}
			after = slices.Compact(slices.Sorted(slices.Values(next)))
			return after
		})
		if err != nil {
			return nil, err
		}
		enabled = after
		if !slices.Equal(before, after) {
			s.toolsetsChanged(r)
		}
	}
	return toolsetResult(groups, enabled), nil
}

// toolsetsChanged tells the client of r that its session's lists changed,
// on the request's stream.
func (s *Server) toolsetsChanged(r *request) {
	s.mu.RLock()
	prompts, resources := s.prompts.len() > 0, s.resources.len()+s.templates.len() > 0
	s.mu.RUnlock()
	empty := json.RawMessage(`{}`)
	_ = r.notify("notifications/tools/list_changed", empty)
	if prompts {
		_ = r.notify("notifications/prompts/list_changed", empty)
	}
	if resources {
		_ = r.notify("notifications/resources/list_changed", empty)
	}
}

// toolsetResult is the toolset tool's answer: the groups, each with
// whether the session has it enabled.
func toolsetResult(groups []groupView, enabled []string) *ToolResult {
	var text strings.Builder
	for i := range groups {
		g := &groups[i]
		g.Enabled = slices.Contains(enabled, g.Name)
		state := "disabled"
		if g.Enabled {
			state = "enabled"
		}
		fmt.Fprintf(&text, "%s (%s): %d tools, %d prompts, %d resources", g.Name, state, g.Tools, g.Prompts, g.Resources)
		if g.Description != "" {
			text.WriteString(". " + g.Description)
		}
		text.WriteByte('\n')
	}
	if len(groups) == 0 {
		text.WriteString("This server has no groups to choose from.")
	}
	return &ToolResult{Content: []Content{Text(text.String())}, StructuredContent: struct {
		Groups []groupView `json:"groups"`
	}{groups}}
}
