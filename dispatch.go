package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// wireParams is the union of the params members Ferry reads, so a request's
// params are decoded once.
type wireParams struct {
	Meta requestMeta `json:"_meta"`

	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	URI       string          `json:"uri"`
	Cursor    *string         `json:"cursor"`

	// initialize
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`

	// logging/setLevel
	Level string `json:"level"`

	// modern retries
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   string          `json:"requestState"`

	// completion/complete
	Ref *struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context *struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`

	// notifications/cancelled
	RequestID json.RawMessage `json:"requestId"`

	// subscriptions/listen
	Notifications *listenFilter `json:"notifications"`
}

// requestMeta is a request's _meta member.
type requestMeta struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Version       versionJSON     `json:"io.modelcontextprotocol/protocolVersion"`
	Caps          capsJSON        `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel      string          `json:"io.modelcontextprotocol/logLevel"`
	// The W3C trace context and baggage, for [ServerOptions.Observer]:
	// decoded into a TraceContext only when the request carries one, so
	// that a request without costs a pointer.
	*TraceContext
}

const metaServerInfo = "io.modelcontextprotocol/serverInfo"

// incoming is a decoded message: the envelope, its params, and the error
// to answer when its params did not decode (invalid params).
type incoming struct {
	m    *jsonrpc.Message
	kind jsonrpc.Kind
	p    *wireParams
	perr error
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

// checkModern validates a modern request's _meta and fills r from it.
func (s *Server) checkModern(r *request, p *wireParams) error {
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
	r.modern, r.version = true, v
	r.caps = p.Meta.Caps.caps
	r.level = levelOff
	if p.Meta.LogLevel != "" {
		l, ok := parseLevel(p.Meta.LogLevel)
		if !ok {
			return NewError(CodeInvalidParams, "unknown log level %q", p.Meta.LogLevel)
		}
		r.level = l
	}
	return nil
}

// respond appends the complete response to r.
func (s *Server) respond(ctx context.Context, r *request, p *wireParams, b []byte) []byte {
	if s.opts.Observer != nil {
		return s.respondObserved(ctx, r, p, b)
	}
	return s.respondTo(ctx, r, p, b)
}

// respondTo is respond without the observer.
func (s *Server) respondTo(ctx context.Context, r *request, p *wireParams, b []byte) []byte {
	start := len(b)
	r.progressToken = p.Meta.ProgressToken
	b = jsonrpc.AppendResultHead(b, r.id)
	b = append(b, '{')
	b, err := s.safeDispatch(ctx, r, p, b)
	if err != nil {
		r.failed = CodeOf(err)
		return appendErrorResponse(b[:start], r.id, err)
	}
	if r.modern {
		b = s.appendModernTail(b, r)
	}
	return append(b, "}}"...)
}

// appendModernTail appends the members every modern result carries: its
// resultType ("complete" unless the request said otherwise) and a _meta
// holding serverInfo, merged with the result's own _meta entries.
func (s *Server) appendModernTail(b []byte, r *request) []byte {
	b = appendKey(b, "resultType")
	if r.resultType == "" {
		b = append(b, `"complete"`...)
	} else {
		b = jsonrpc.AppendString(b, r.resultType)
	}
	if len(r.resultMeta) > 0 {
		return appendMeta(b, r.resultMeta, map[string]any{metaServerInfo: json.RawMessage(s.infoJSON())})
	}
	b = appendKey(b, "_meta")
	b = append(b, `{"`+metaServerInfo+`":`...)
	b = append(b, s.infoJSON()...)
	return append(b, '}')
}

// errInputPending reports that a handler asked the client something in the
// modern era: the answer is an input_required result.
var errInputPending = errors.New("ferry: input pending")

// safeDispatch runs dispatch, turning a handler's panic into -32603 (the
// details go to the log, under a reference the error's data repeats) and
// pending questions into input_required. out is b with the result members
// appended; after a panic, b as it came.
func (s *Server) safeDispatch(ctx context.Context, r *request, p *wireParams, b []byte) (out []byte, err error) {
	start := len(b)
	defer func() {
		if v := recover(); v != nil {
			ref := newRef()
			s.logError(ctx, "handler panicked", "method", r.method, "ref", ref, "panic", v, "stack", string(debug.Stack()))
			out, err = b[:start], internalError(ref)
		}
	}()
	out, err = s.dispatch(ctx, r, p, b)
	if errors.Is(err, errInputPending) {
		if failed := r.input.failure(); failed != nil {
			return b[:start], failed
		}
		key := p.Name
		if r.method == "resources/read" {
			key = p.URI
		}
		r.resultType, r.resultMeta = "input_required", nil
		return s.appendInputRequired(out[:start], r.method, stateKey(ctx, key), p.Arguments, r.input), nil
	}
	return out, err
}

func methodNotFound(method string) error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// dispatch appends the result members of r to an open object.
func (s *Server) dispatch(ctx context.Context, r *request, p *wireParams, b []byte) (_ []byte, err error) {
	switch r.method {
	case "tools/list":
		ctx := withRequest(ctx, r)
		b, err = listPage(s, r, p, b, "tools", &s.tools, listFilter[*toolEntry]{
			visible: func(e *toolEntry) bool { return s.visibleTool(ctx, &e.info) },
			always:  s.opts.ReadOnly || s.opts.Visible != nil, hook: s.opts.Visible != nil})
	case "tools/call":
		return s.callTool(ctx, r, p, b)
	case "prompts/list":
		b, err = listPage(s, r, p, b, "prompts", &s.prompts, listFilter[*promptEntry]{
			visible: func(e *promptEntry) bool { return s.allowsEntry(ctx, e.prompt.Scopes, e.prompt.Roles) }})
	case "prompts/get":
		b, err = s.getPrompt(ctx, r, p, b)
	case "resources/list":
		b, err = listPage(s, r, p, b, "resources", &s.resources, listFilter[*resourceEntry]{
			visible: func(e *resourceEntry) bool { return s.allowsEntry(ctx, e.res.Scopes, e.res.Roles) }})
	case "resources/templates/list":
		b, err = listPage(s, r, p, b, "resourceTemplates", &s.templates, listFilter[*templateEntry]{
			visible: func(e *templateEntry) bool { return s.allowsEntry(ctx, e.tmpl.Scopes, e.tmpl.Roles) }})
	case "resources/read":
		b, err = s.readResource(ctx, r, p, b)
	case "completion/complete":
		b, err = s.complete(ctx, r, p, b)
	case "subscriptions/listen":
		if !r.modern {
			return b, methodNotFound(r.method)
		}
		return s.listen(ctx, r, p, b)
	case "server/discover":
		if !r.modern {
			return b, methodNotFound(r.method)
		}
		b = s.appendDiscover(b)
	case "ping":
		if r.modern {
			return b, methodNotFound(r.method)
		}
	case "initialize":
		if r.modern {
			return b, methodNotFound(r.method)
		}
		b = s.appendInitialize(b, r.version, r.stateless)
	case "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		if r.modern {
			return b, methodNotFound(r.method)
		}
		err = s.legacyState(ctx, r, p)
	default:
		err = methodNotFound(r.method)
	}
	return b, err
}

// protocolError passes an [*Error] through and masks anything else behind
// a reference to the log record, which the error's message and data carry
// so that a user can quote it.
func (s *Server) protocolError(ctx context.Context, kind, name string, err error) error {
	if pe := (*Error)(nil); errors.As(err, &pe) {
		return err
	}
	ref := newRef()
	s.logError(ctx, kind+" failed", kind, name, "ref", ref, "err", err)
	return internalError(ref)
}

// internalError is the -32603 error of a failure masked behind ref.
func internalError(ref string) *Error {
	return &Error{Code: CodeInternalError, Message: "internal error (ref " + ref + ")", Data: map[string]string{"ref": ref}}
}

// legacyState serves the methods that change a legacy session's state. A
// stateless session declares none of them.
func (s *Server) legacyState(ctx context.Context, r *request, p *wireParams) error {
	if r.state == nil {
		return methodNotFound(r.method)
	}
	switch r.method {
	case "logging/setLevel":
		l, ok := parseLevel(p.Level)
		if !ok {
			return NewError(CodeInvalidParams, "unknown log level %q: use debug, info, notice, warning, error, critical, alert or emergency", p.Level)
		}
		return r.state.setLevel(ctx, l)
	default:
		s.mu.RLock()
		ok := s.hasResourcesLocked()
		s.mu.RUnlock()
		if !ok {
			return methodNotFound(r.method)
		}
		if err := checkSubscriptionURI(r.method, p.URI); err != nil {
			return err
		}
		return r.state.subscribe(ctx, p.URI, r.method == "resources/subscribe")
	}
}
