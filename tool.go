package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ferry-mcp/ferry/schema"
	"github.com/ferry-mcp/ferry/toolname"
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

	// The four hints follow one rule: each is a bool whose zero value is
	// the protocol's cautious default, so a Tool that says nothing may
	// write, may destroy, is not idempotent and reaches outside systems.
	// [ToolInfo] holds them as clients are sent them.

	// ReadOnly says the tool does not change its environment (the
	// protocol's readOnlyHint). A read-only tool is also reported
	// idempotent and not destructive.
	ReadOnly bool
	// Additive says a tool that writes only adds: it never destroys or
	// overwrites data (destructiveHint false). If false, a tool that is not
	// ReadOnly is reported destructive.
	Additive bool
	// Idempotent says that calling the tool again with the same arguments
	// has no further effect (idempotentHint).
	Idempotent bool
	// ClosedWorld says the tool reaches only a closed set of things, such
	// as this service's own database (openWorldHint false). If false, it
	// is reported to reach an open world (the web, another company's API).
	ClosedWorld bool

	// InputSchema is the JSON Schema of the arguments, an object schema,
	// built by hand ([schema.Object]) or at run time. The server checks it
	// once, at registration, and then checks every call's arguments against
	// it before the handler runs: a call that does not fit gets an IsError
	// result listing every violation with its path (see
	// [NewInvalidArgumentsResult]), and the handler does not run. The handler
	// reads the arguments checked, coerced under [ServerOptions.Coercion]
	// and with the defaults of absent properties filled in. [AddTool]
	// derives it from the input type. If it and RawInputSchema are nil,
	// {"type":"object"} is sent and any arguments are accepted.
	InputSchema *schema.Schema
	// OutputSchema, if not nil, is the JSON Schema of the result's
	// structured content. [AddTool] derives it from the output type.
	OutputSchema *schema.Schema
	// RawInputSchema, if not nil, is sent as the input schema as it is:
	// the escape hatch for what the server cannot check, for clients known
	// to accept it: $ref, or the anyOf, oneOf and lists of types that a
	// [schema.Schema] holds but [schema.Compile] refuses (marshal such a
	// Schema into RawInputSchema). It is only checked to be a JSON object
	// schema: it is not checked for portability (see
	// [schema.PortableJSON]) and not compiled, so the handler gets the
	// arguments as the client sent them. Set it or InputSchema, not both.
	RawInputSchema json.RawMessage
	// RawOutputSchema, if not nil, is sent as the output schema as it is,
	// as RawInputSchema is. Set it or OutputSchema, not both.
	RawOutputSchema json.RawMessage

	// Scopes name what a caller must hold to call the tool, such as OAuth
	// scopes: every one of them (see [Server.MissingScopes]). If empty,
	// the tool needs no scope.
	Scopes []string
	// Roles name the groups allowed to call the tool: a caller in any one
	// of them may (see [Principal.HasAnyRole]). If empty, the tool needs
	// no role.
	//
	// A caller who lacks a role or a scope (an anonymous one lacks them
	// all) does not see the tool: it is left out of tools/list, of the
	// schema resources and of completions, and calling it gets exactly the
	// answer an unknown tool gets, in both eras. With
	// [ServerOptions.StepUp], an authenticated caller who has a role but
	// lacks scopes sees it and is asked for them instead.
	Roles []string

	// TaskSupport says whether the tool runs as a task of the tasks
	// extension (see [ServerOptions.Tasks]). If zero, it never does.
	TaskSupport TaskSupport
	// AskBeforeTask says a call that would run as a task first runs as a
	// plain call, so that the questions its handler asks ([Elicit] and the
	// like) are answered by the client's 2026-07-28 retry (input_required),
	// and becomes a task only on the retry that carries the answers. A
	// first call that asks nothing is answered as a plain call. If false,
	// the task starts with the call, and questions are answered through
	// tasks/update.
	AskBeforeTask bool
	// Groups name the groups the tool belongs to (see [GroupInfo]): an
	// endpoint that serves some groups ([HTTPOptions.Groups]) serves the
	// tools of those. If nil, the group is derived from the Go package
	// that declares the handler (see [GroupOfPackage]); an empty, non-nil
	// slice puts the tool in no group.
	Groups []string
	// Timeout is the tool's own deadline, in place of the server's
	// [Limits.CallTimeout]: longer for a report that takes minutes,
	// shorter for a lookup that should fail fast. A call past it is
	// answered as one past the server's is ("unavailable: the tool timed
	// out after 5s"). If zero, the server's; if negative, the call has no
	// deadline but its transport's. [ToolInfo.Timeout] holds the one
	// that applies.
	Timeout time.Duration
	// MaxResultBytes is the tool's own bound on its result's size, in
	// place of the server's [Limits.MaxResultBytes] (which says how a
	// result over it is cut). If zero, the server's; if negative, none:
	// for a tool whose large answer the user asked for (a file, an image),
	// though a client's own limit still holds.
	MaxResultBytes int
	// Confirm says whether a call waits for a person to confirm it before
	// it runs (see [ServerOptions.Confirm]). If zero, a call of a
	// destructive tool does, when the server confirms.
	Confirm ConfirmPolicy
	// Summarize, if not nil, says what a call will change, in a sentence
	// or two the person confirming it reads below the tool's name and
	// arguments ("Deletes order 42 and its 3 lines; the customer is told
	// by mail."). It gets the arguments checked against the input schema.
	// A refusal it returns ([NotFound] for an order that does not exist)
	// is the call's answer, and nobody is asked; any other error is masked
	// as a handler's is. If nil, the person reads that the tool may
	// delete or overwrite data.
	Summarize func(ctx context.Context, req *CallToolRequest) (string, error)

	// Icons are images a client may show for the tool.
	Icons []Icon
	// Meta is sent as the tool's _meta member.
	Meta map[string]any
	// App is the ui:// URI of the app (see [App]) that shows the tool's
	// results, for a client that declared the apps extension: it reads
	// _meta.ui.resourceUri in tools/list. Other clients see the tool
	// without it, and read its results as text: the result's content must
	// say all. The app must be added with [Server.AddApp].
	App string
}

// CallToolRequest is a tools/call as a tool handler sees it.
type CallToolRequest struct {
	// Name is the tool's name.
	Name string
	// Arguments is the arguments object as the client sent it, or nil.
	// When the tool has an [Tool.InputSchema], the handler sees them
	// checked, coerced and with defaults filled in: the check runs after
	// the middleware, so a middleware sees them as sent before it calls
	// next, and, on the same request, as the handler saw them after.
	Arguments json.RawMessage
	// Tool is the called tool as the catalog knows it: its resolved hints
	// and its scopes, for middleware that decides by them. It is shared
	// by every call of the tool, and read-only. The server always sets
	// it; a request built by hand (in a test) must too, for middleware
	// that reads it.
	Tool *ToolInfo
}

// ToolHandler runs a tool call. It returns a [*ToolResult]; a result with
// IsError set is a failure the model reads. A returned refusal ([NotFound],
// [Refuse] and the like) becomes an IsError result reading "code: message";
// a returned [*Error] becomes a protocol error; any other error (and a
// panic) is offered to [ServerOptions.OnToolError], and otherwise becomes an
// IsError result that masks it behind a reference, with the whole error in
// the log. An error returned after the call's context was cancelled is
// recorded as a cancellation, not a failure.
//
// Handlers run concurrently on every transport, stdio included: several
// calls of one tool may be in flight at once, so a handler must guard any
// state it shares.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*ToolResult, error)

// ToolMiddleware wraps every tool call. Middleware listed first in
// [ServerOptions.ToolMiddleware] runs first. It sees the called tool
// ([CallToolRequest.Tool]) and, through ctx, the caller
// ([PrincipalFromContext]).
//
// A middleware may refuse a call by returning an error without calling
// next: its errors, and its panics, are mapped exactly as a handler's are
// (see [ToolHandler]), so a refusal from a middleware reads to the model
// as one from the handler would. Like handlers, middleware runs
// concurrently and must be safe for concurrent use. It sees the arguments
// as the client sent them (see [CallToolRequest.Arguments]). A middleware
// that calls next more than once (a retry) still makes one record in the
// call log, for the call as a whole.
type ToolMiddleware func(next ToolHandler) ToolHandler

type toolEntry struct {
	tool    Tool
	info    ToolInfo    // resolved once, shared by every call
	handler ToolHandler // wrapped in the middleware chain
	json    []byte
	plain   []byte          // json without the tool's app, or nil when it has none
	params  []paramHeader   // arguments mirrored in Mcp-Param-* headers
	in, out json.RawMessage // the schemas as sent
	// hideable says some caller may not see the tool (see
	// [Server.mayHide]), fixed at registration with the server's options:
	// resolving a call of a tool everyone sees judges nothing.
	hideable bool
	// confirm, when not nil, puts each call to a person before it runs
	// (confirm.go).
	confirm *confirmation
	// doc is the tool's words for discovery mode's search, zero when the
	// server has no discovery mode (discovery_search.go).
	doc searchDoc
}

func (e *toolEntry) key() string          { return e.tool.Name }
func (e *toolEntry) wire() []byte         { return e.json }
func (e *toolEntry) groupNames() []string { return e.info.Groups }
func (e *toolEntry) guarded() bool {
	return len(e.info.Scopes) > 0 || len(e.info.Roles) > 0
}
func (e *toolEntry) openTo(*Server) bool { return !e.hideable }
func (e *toolEntry) visibleTo(ctx context.Context, s *Server) bool {
	return s.visibleTool(ctx, &e.info)
}

// wireTool is a tool as tools/list sends it.
type wireTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  wireAnnotations `json:"annotations"`
	Icons        []Icon          `json:"icons,omitempty"`
	Execution    *wireExecution  `json:"execution,omitempty"`
	Meta         map[string]any  `json:"_meta,omitempty"`
}

// wireExecution is a tool's execution member: its task support.
type wireExecution struct {
	TaskSupport string `json:"taskSupport"`
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
// [Server.Check] before serving; once the server serves, a tool with a
// problem is not added, and the problem is logged at Error level, naming
// the tool. It panics if h is nil.
func (s *Server) AddTool(t Tool, h ToolHandler) {
	if h == nil {
		panic("ferry: AddTool needs a handler") //nolint:forbidigo // a programmer error at registration, documented
	}
	t.Groups = handlerGroups(t.Groups, h)
	s.addTool(t, h)
}

func (s *Server) addTool(t Tool, h ToolHandler) {
	t.Description = s.describe(t.Description, t.Scopes, t.Roles)
	ts, problems := s.compileSchemas(&t)
	problems = append(problems, checkTool(&t)...)
	if err := groupProblem("tool", t.Name, t.Groups); err != nil {
		problems = append(problems, err)
	}
	if t.InputSchema != nil && ts.validator == nil {
		s.admit("tool", t.Name, problems, nil, nil) // never serve unchecked arguments to a tool that has a schema
		return
	}
	if ts.validator != nil {
		h = validating(ts.validator, h)
	}
	info := t.info()
	problems = append(problems, s.checkTaskSupport(&t)...)
	info.Timeout = s.toolTimeout(t.Timeout)
	info.MaxResultBytes = s.toolBudget(t.MaxResultBytes)
	info.Confirm = s.confirms(&t, &info)
	wt := wireTool{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: ts.input, OutputSchema: ts.output, Icons: t.Icons, Meta: t.Meta, Execution: t.execution(),
		Annotations: wireAnnotations{Title: t.Title, ReadOnlyHint: info.ReadOnly, DestructiveHint: info.Destructive,
			IdempotentHint: info.Idempotent, OpenWorldHint: info.OpenWorld}}
	data, err := json.Marshal(wt)
	var plain []byte // without the app, for clients that do not speak apps
	if err == nil && t.App != "" {
		problems = append(problems, s.checkToolApp(&t)...)
		plain, wt.Meta = data, withAppMeta(t.Meta, t.App)
		data, err = json.Marshal(wt)
	}
	if err != nil {
		s.admit("tool", t.Name, append(problems, fmt.Errorf("tool %q: its schemas are not valid JSON: %w", t.Name, err)), nil, nil)
		return
	}
	params, headerProblems := paramHeaders(data)
	for _, p := range headerProblems {
		problems = append(problems, fmt.Errorf("tool %q: %s", t.Name, p))
	}
	e := &toolEntry{tool: t, info: info, handler: s.wrapTool(h), json: data, plain: plain, params: params, in: ts.input, out: ts.output,
		hideable: s.mayHide(&info), confirm: s.newConfirmation(&t, &info, ts.validator)}
	if s.discovery != nil {
		e.doc = newSearchDoc(&t, ts.input, info.Groups)
	}
	dup := func() []error {
		if _, dup := s.tools.get(t.Name); dup {
			return []error{fmt.Errorf("tool %q is registered twice (remove the first with RemoveTools to replace it)", t.Name)}
		}
		return nil
	}
	if s.admit("tool", t.Name, problems, dup, func() { s.tools.add(e) }) {
		s.listChanged("notifications/tools/list_changed", audienceOf(s, []*toolEntry{e}))
	}
}

// RemoveTools removes the named tools; names that are not registered are
// ignored.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	removed := s.tools.removeAll(names)
	s.mu.Unlock()
	if len(removed) > 0 {
		s.listChanged("notifications/tools/list_changed", audienceOf(s, removed))
	}
}

// unknownTool is the answer to a tools/call of a tool that is not
// registered, or that the caller may not see: the two read the same.
func unknownTool(name string) error {
	return NewError(CodeInvalidParams, "unknown tool %q", name)
}

// ValidToolName returns nil if name is a tool name the protocol accepts
// (1 to 128 characters of A-Z a-z 0-9 _ - .), or an error saying what is
// wrong with it. [Server.Check] reports tools whose names break the rule;
// packages that derive names from data (a table, a proto method) call it
// to choose another name first.
func ValidToolName(name string) error {
	if err := toolname.Check(name); err != nil {
		return fmt.Errorf("ferry: tool %q: %w", name, err)
	}
	return nil
}
