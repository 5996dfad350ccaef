package ferry

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// request is one client request being served, resolved once where its
// transport reads it (see [Server.resolve]): what the peer is (peer), what
// the call is (the fields in between) and how its answer is written
// (reply). Everything a handler reaches through its context is here, in
// one allocation.
type request struct {
	peer peer

	// What the call is. The transport sets id, method and params as
	// decoded, and the era's facts (modern, version, caps, level): from
	// the request's _meta in the modern era, from its session in the
	// legacy one. resolve sets row and target.
	id      json.RawMessage
	method  string
	params  *wireParams
	modern  bool
	version string
	caps    clientCaps
	level   LogLevel // the log threshold: levelOff sends no log
	// caller is the request's [Principal] as its transport received it,
	// or nil for an anonymous one: who the per-caller limits count.
	caller *Principal
	row    *method // nil when no method has the name
	target target
	// err is what resolve could not settle (an unknown method or tool, a
	// hidden one): the request is answered with it, unserved.
	err error

	reply reply

	// ctx is the context the request is served in: the transport's, with
	// the request as a value (see [request.bind]).
	ctx requestCtx
}

// peer is what the transport knows of where a request came from and how
// to reach it. Each field is optional.
type peer struct {
	// header, remote and host are the HTTP request's headers, client
	// address (RemoteAddr) and Host; nil and empty on stdio.
	header http.Header
	remote string
	host   string
	// out sends messages on the request's stream; nil when there is none.
	out outbound
	// calls routes the replies to server-to-client requests; nil when
	// replies cannot reach this replica.
	calls *pendingCalls
	// places are the places in flight of a stream connection (stdio), of
	// which the request holds a running one that it trades while it waits
	// for the client (see [request.waitForClient]); nil elsewhere.
	places *places
	// drain is the shutdown state of the transport: its closing channel
	// ends long-lived requests (subscriptions/listen). Nil when the
	// transport cannot shut down.
	drain *drain
	// watch is a subscriptions/listen's watcher when the transport
	// registered it as the request was read (stdio), so that it holds
	// before any later request of the connection is served.
	watch *watcher
	// session is the legacy session's id (HTTP); state what the session
	// remembers, nil when it keeps nothing (a stateless HTTP session, and
	// every modern request).
	session string
	state   legacyState
	// groups are the groups the endpoint serves, nil for all (see
	// [HTTPOptions.Groups]): an entry of none of them is hidden.
	groups *groupSet
}

// target is the entry a request names, looked up once by
// [Server.resolve], and what the caller may do with it.
type target struct {
	// name is the tool or prompt name, or the URI, as sent: the one
	// place that decides which a method names.
	name   string
	tool   *toolEntry
	prompt *promptEntry
	// read and vars serve the resource a resources/read names.
	read   ResourceHandler
	vars   map[string]string
	access access
	// viaCall says the request called the tool name through the discovery
	// mode's call tool, whose name the client sent (see
	// [Server.resolveMeta]).
	viaCall bool
}

// found reports whether the named entry exists, visible or not.
func (t *target) found() bool { return t.tool != nil || t.prompt != nil || t.read != nil }

// reply is how the answer to a request is being written, and what its
// handler left for it. Its small fields sit together, so that a request
// stays in its allocation size class (see request_size_test.go).
type reply struct {
	mu sync.Mutex // guards done, the progress, the outcome and the places traded
	// lastProgress is the last progress sent, if sentProgress.
	lastProgress float64
	// waiting counts the questions waiting for the client's answer, and
	// gaveUp says the running place was traded for a waiting one.
	waiting int32
	// done says the request was answered: nothing more is sent for it.
	done         bool
	sentProgress bool
	gaveUp       bool
	// toolError says a tools/call's result has isError set.
	toolError bool
	// outcome and refusal are how a tool call ended, for the call log.
	outcome outcome
	// inputRequired says a modern answer is an input_required result, not
	// a complete one.
	inputRequired bool
	// task says a tools/call is answered with a task (resultType
	// "task"), or is a run of one (see task.go).
	task    bool
	refusal RefusalCode
	// started is the task a task-augmented tools/call started, which the
	// observer's End waits for (see [runningTask.observed]).
	started *runningTask
	// failed is the code of the error the request was answered with, or 0.
	failed Code
	// resultMeta holds the _meta entries of the result (a modern one's
	// besides serverInfo), written after its members.
	resultMeta map[string]any

	// input is the state of a modern multi round-trip request: made when
	// its handler first asks the client something, or when its retry
	// carries answers (see [request.inputState]); nil until then.
	input *inputState
	// call is a tools/call's context under [Limits.CallTimeout],
	// and callReq what its handler is given, here so that a call
	// allocates neither.
	call    callCtx
	callReq CallToolRequest
}

// newRequest returns the request of message m, from peer p, served in
// ctx. Its era is not known yet: the transport sets it (see
// [request.join] for a legacy session's), and then resolves it.
func newRequest(ctx context.Context, m *jsonrpc.Message, params *wireParams, p peer) *request {
	r := &request{peer: p, id: m.ID, method: m.Method, params: params}
	r.ctx = requestCtx{Context: ctx, r: r}
	r.caller, _ = PrincipalFromContext(ctx)
	return r
}

// context returns the context the request is served in. Contexts derived
// from it (a call's deadline, an observer's span) reach the request too.
func (r *request) context() context.Context { return &r.ctx }

// requestCtx is a request's context: its parent's, with the request as a
// value. It lives inside the request, so that serving one allocates no
// context of its own.
type requestCtx struct {
	context.Context //nolint:containedctx // a context's parent, as the context package keeps it
	r               *request
}

type requestKey struct{}

// Value implements [context.Context].
func (c *requestCtx) Value(key any) any {
	if key == (requestKey{}) {
		return c.r
	}
	return c.Context.Value(key)
}

func requestFrom(ctx context.Context) *request {
	r, _ := ctx.Value(requestKey{}).(*request)
	return r
}

// legacySession is what a request of a legacy session learns from it:
// what a stdio connection holds, or what an HTTP session id resolves to
// (see [HTTPHandler.legacySession]). state is nil for a stateless HTTP
// session, which keeps nothing.
type legacySession struct {
	id      string
	version string
	caps    clientCaps
	level   LogLevel
	state   legacyState
	groups  *groupSet // the groups the session enabled (toolset.go), nil for all
}

// join makes r a request of the legacy session ls.
func (r *request) join(ls legacySession) {
	r.peer.session, r.peer.state = ls.id, ls.state
	r.version, r.caps, r.level = ls.version, ls.caps, ls.level
	if ls.groups != nil { // legacy toolsets (toolset.go): the endpoint's groups the session enabled
		r.peer.state = &toolsetSession{legacyState: ls.state, endpoint: r.peer.groups}
		r.peer.groups = r.peer.groups.narrow(ls.groups)
	}
}

// stateless reports whether r is a request of a legacy HTTP session that
// keeps nothing.
func (r *request) stateless() bool { return !r.modern && r.peer.state == nil }

// resolve settles what r is before it is served, once: its row of the
// method table, whether the method exists for r's era and session, and
// the entry r names with the caller's access to it. The header checks,
// step-up, the limits, observers, the call log and the handler all read
// what it settles. What does not resolve (an unknown method, tool or
// prompt, one hidden from the caller) is kept in r.err, and [Server.serve]
// answers with it.
func (s *Server) resolve(r *request) {
	m := lookupMethod(r.method)
	r.row = m
	if m == nil || !m.servedIn(r.modern, r.stateless()) || m.extension != 0 && !s.Serves(m.extension) {
		r.err = methodNotFound(r.method) // its name is not read: Mcp-Name is not checked
		return
	}
	// The name is set before the client's extensions are judged: a
	// refused request's routing headers are still checked against it.
	switch m.target {
	case targetTool, targetPrompt:
		r.target.name = r.params.Name
	case targetTask:
		r.target.name = r.params.TaskID
	case targetResource, targetURI:
		r.target.name = r.params.URI
	}
	if m.extension != 0 && !m.undeclared && !r.caps.ext.has(m.extension) {
		r.err = missingExtension(m.extension)
		return
	}
	if m.target == targetNone && !m.gated {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if m.gated && !s.declaresLocked(m.capability) {
		r.err = methodNotFound(r.method)
		return
	}
	switch m.target {
	case targetTool:
		s.findTool(r)
	case targetPrompt:
		s.findPrompt(r)
	case targetResource:
		s.findResourceLocked(r)
	}
}

// findTool resolves the tool a tools/call names and the caller's access
// to it. A tool the caller may not see answers as one that does not
// exist. The caller holds s.mu.
func (s *Server) findTool(r *request) {
	if s.discovery != nil && s.resolveMeta(r) || s.toolsets != nil && s.resolveToolset(r) {
		return
	}
	name := r.target.name
	e, ok := s.tools.get(name)
	if !ok {
		r.err = unknownTool(name)
		return
	}
	r.target.tool = e
	if r.peer.groups != nil && !r.peer.groups.admits(e.info.Groups) {
		r.target.access = accessHidden
	} else if e.hideable {
		r.target.access = s.toolAccess(r.context(), &e.info)
	}
	if r.target.access == accessHidden {
		r.err = unknownTool(name)
	}
}

// findPrompt resolves the prompt a prompts/get names. The caller holds
// s.mu.
func (s *Server) findPrompt(r *request) {
	name := r.target.name
	e, ok := s.prompts.get(name)
	if !ok {
		r.err = unknownPrompt(name)
		return
	}
	r.target.prompt = e
	if !r.peer.groups.admits(e.prompt.Groups) || !s.allowsEntry(r.context(), e.prompt.Scopes, e.prompt.Roles) {
		r.target.access = accessHidden
		r.err = unknownPrompt(name) // a hidden prompt reads as one that does not exist
	}
}

// finish marks the request answered: nothing more is sent for it.
func (r *request) finish() {
	r.reply.mu.Lock()
	r.reply.done = true
	r.reply.mu.Unlock()
}

// closing returns the channel closed when the request's transport shuts
// down, or nil.
func (r *request) closing() <-chan struct{} {
	if r.peer.drain == nil {
		return nil
	}
	return r.peer.drain.closing
}

// notify sends a notification on the request's stream.
func (r *request) notify(method string, params any) error {
	if r.peer.out == nil {
		return ErrNoClientStream
	}
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	r.reply.mu.Lock()
	defer r.reply.mu.Unlock()
	if r.reply.done {
		return ErrNoClientStream
	}
	return r.peer.out.send(jsonrpc.AppendRequest(nil, nil, method, data))
}

// CallInfo describes the request a handler is serving.
type CallInfo struct {
	// Method is the JSON-RPC method, such as "tools/call".
	Method string
	// Tool is the name of the tool called, for tools/call.
	Tool string
	// ProtocolVersion is the version the request speaks.
	ProtocolVersion string
	// SessionID is the legacy session's id, or empty.
	SessionID string
	// Header holds the HTTP request's headers, or nil on stdio.
	Header http.Header
	// Host is the HTTP request's Host (which net/http keeps out of
	// Header), or empty on stdio.
	Host string
	// ClientCapabilities is what the client declared it can answer (at
	// initialize in legacy sessions, in each request's _meta in the modern
	// era). A handler may read it to ask only what the client can answer.
	ClientCapabilities ClientCapabilities
}

// CallInfoFromContext returns the details of the request ctx belongs to,
// and false when ctx is not a handler's context.
func CallInfoFromContext(ctx context.Context) (CallInfo, bool) {
	r := requestFrom(ctx)
	if r == nil {
		return CallInfo{}, false
	}
	info := CallInfo{Method: r.method, ProtocolVersion: r.version, SessionID: r.peer.session,
		Header: r.peer.header, Host: r.peer.host, ClientCapabilities: r.caps.exported()}
	if r.row != nil && r.row.target == targetTool {
		info.Tool = r.target.name
	}
	return info, true
}

// triesModern reports whether a request tries the modern era: its _meta
// names a modern version, or names a version and the client's capabilities.
func (p *wireParams) triesModern() bool {
	if p.Meta.Version == "" {
		return false
	}
	return IsModern(string(p.Meta.Version)) || p.Meta.Caps.seen
}

// unsupportedVersion is the error for a version the server does not speak,
// listing those it does, as the 2026-07-28 error requires.
func (s *Server) unsupportedVersion(requested, msg string) *Error {
	return &Error{Code: CodeUnsupportedProtocolVersion, Message: msg,
		Data: map[string]any{"supported": s.versions.all, "requested": requested}}
}

// beModern makes r a request of the modern era, with the version,
// capabilities and log level its _meta names, as sent: [Server.checkModern]
// judges them. Without a log level (or with one it does not know, which
// checkModern refuses) r sends no log.
func (r *request) beModern() {
	r.modern, r.version = true, string(r.params.Meta.Version)
	level := levelOff
	if l := r.params.Meta.LogLevel; l != "" {
		level, _ = parseLevel(l)
	}
	r.caps, r.level = r.params.Meta.Caps.caps, level
}

// carriesAnswers reports whether r is a modern retry that carries the
// client's answers to the questions an earlier round asked (see
// [Server.loadModernInput]).
func (r *request) carriesAnswers() bool {
	return r.modern && (len(r.params.InputResponses) > 0 || r.params.RequestState != "")
}

// checkModern validates a modern request's _meta (see [request.beModern]).
func (s *Server) checkModern(r *request) error {
	p := r.params
	if p.Meta.Version == "" {
		return NewError(CodeInvalidParams, `missing _meta field "io.modelcontextprotocol/protocolVersion"`)
	}
	v := string(p.Meta.Version)
	if !IsModern(v) || !s.versions.supports(v) {
		return s.unsupportedVersion(v, "unsupported protocol version "+strconv.Quote(v))
	}
	if !p.Meta.Caps.object {
		return NewError(CodeInvalidParams, `missing or invalid _meta field "io.modelcontextprotocol/clientCapabilities"`)
	}
	if l := p.Meta.LogLevel; l != "" {
		if _, ok := parseLevel(l); !ok {
			return NewError(CodeInvalidParams, "unknown log level %q", l)
		}
	}
	return nil
}

// inputState returns the state of r's questions to the client in the
// 2026-07-28 era, made on first use, or nil when r cannot ask the client
// anything: a legacy request (which asks on its stream), or one of a
// method whose handler may not ask.
func (r *request) inputState() *inputState {
	if !r.modern || r.row == nil || !r.row.asks {
		return nil
	}
	r.reply.mu.Lock()
	defer r.reply.mu.Unlock()
	if r.reply.input == nil {
		r.reply.input = new(inputState)
	}
	return r.reply.input
}
