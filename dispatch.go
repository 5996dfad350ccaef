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

// decodeMessage decodes a message and its params in one pass. err reports
// a message that is not JSON or not JSON-RPC (see [decodeError]).
func decodeMessage(data []byte) (incoming, error) {
	p := new(wireParams)
	m, kind, err, perr := jsonrpc.DecodeWith(data, p)
	in := incoming{m: m, kind: kind, p: p}
	if perr != nil {
		in.perr = NewError(CodeInvalidParams, "invalid params: %v", perr)
	}
	return in, err
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
		var visible func(*toolEntry) bool
		if s.opts.Visible != nil {
			ctx := withRequest(ctx, r)
			visible = func(e *toolEntry) bool { return s.opts.Visible(ctx, e.info) }
		}
		b, err = listPage(s, r, p, b, "tools", &s.tools, visible)
	case "tools/call":
		return s.callTool(ctx, r, p, b)
	// Prompts and resources have no visibility hook yet: one would pass its
	// filter here as tools/list does.
	case "prompts/list":
		b, err = listPage(s, r, p, b, "prompts", &s.prompts, nil)
	case "prompts/get":
		b, err = s.getPrompt(ctx, r, p, b)
	case "resources/list":
		b, err = listPage(s, r, p, b, "resources", &s.resources, nil)
	case "resources/templates/list":
		b, err = listPage(s, r, p, b, "resourceTemplates", &s.templates, nil)
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

// listPage appends one page of a list method's result. visible, if not
// nil, filters the entries before paging: a hidden entry takes no place in
// a page, and the cursor (the last key sent) skips past it as past any
// other. It runs under s.mu's read lock, as [ServerOptions.Visible] says.
func listPage[T entry](s *Server, r *request, p *wireParams, b []byte, member string, reg *registry[T], visible func(T) bool) ([]byte, error) {
	after, err := s.readCursor(member, p.Cursor)
	if err != nil {
		return b, err
	}
	s.mu.RLock()
	declared := s.declares(member)
	var items []T
	more := false
	if visible == nil {
		items, more = reg.page(after, s.pageSize)
	} else {
		items, more = filterPage(reg.from(after), s.pageSize, visible)
	}
	if len(items) == 0 && !more && !declared {
		s.mu.RUnlock()
		return b, methodNotFound(r.method)
	}
	b = appendKey(b, member)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.wire()...)
	}
	last := ""
	if more {
		last = items[len(items)-1].key() // items may alias the registry
	}
	s.mu.RUnlock()
	b = append(b, ']')
	if more {
		b = appendKey(b, "nextCursor")
		b = jsonrpc.AppendString(b, s.keys.sign(cursorPurpose+member, []byte(last)))
	}
	if r.modern {
		b = appendCacheable(b, visible != nil)
	}
	return b, nil
}

// filterPage returns the first size entries of rest that visible keeps,
// and whether it keeps any after them.
func filterPage[T entry](rest []T, size int, visible func(T) bool) (page []T, more bool) {
	page = make([]T, 0, min(size, len(rest))) // rest is the registry's: never written
	for _, e := range rest {
		if !visible(e) {
			continue
		}
		if len(page) == size {
			return page, true
		}
		page = append(page, e)
	}
	return page, false
}

// cursorPurpose signs list cursors, one purpose per list, so that a cursor
// of one list is not accepted by another.
const cursorPurpose = "cursor "

// readCursor returns the key a list cursor resumes after, "" for the first
// page. A cursor the server did not issue for this list is -32602.
func (s *Server) readCursor(member string, cursor *string) (string, error) {
	if cursor == nil || *cursor == "" {
		return "", nil
	}
	last, err := s.keys.verify(cursorPurpose+member, *cursor)
	if err != nil || len(last) == 0 {
		return "", NewError(CodeInvalidParams, "invalid cursor %q: pass the nextCursor of a previous page", *cursor)
	}
	return string(last), nil
}

// declares reports whether the capability behind a list member is
// declared. The caller holds s.mu.
func (s *Server) declares(member string) bool {
	switch member {
	case "tools":
		return s.tools.len() > 0
	case "prompts":
		return s.prompts.len() > 0
	default:
		return s.hasResourcesLocked()
	}
}

// listTTL is how long a modern client may cache a list.
const listTTL = 60_000

// appendCacheable appends how long a modern client may cache a result,
// and whether a shared cache may: not when the result depends on the
// caller (private).
func appendCacheable(b []byte, private bool) []byte {
	b = appendKey(b, "ttlMs")
	b = strconv.AppendInt(b, listTTL, 10)
	b = appendKey(b, "cacheScope")
	if private {
		return append(b, `"private"`...)
	}
	return append(b, `"public"`...)
}

func (s *Server) infoJSON() []byte {
	s.infoOnce.Do(func() { s.info, _ = json.Marshal(s.implementation()) })
	return s.info
}

func (s *Server) appendInitialize(b []byte, version string, stateless bool) []byte {
	b = appendKey(b, "protocolVersion")
	b = jsonrpc.AppendString(b, version)
	b = appendKey(b, "capabilities")
	b, _ = marshalInto(b, s.capabilities(false, stateless))
	b = appendKey(b, "serverInfo")
	b = append(b, s.infoJSON()...)
	if s.opts.Instructions != "" {
		b = appendKey(b, "instructions")
		b = jsonrpc.AppendString(b, s.opts.Instructions)
	}
	return b
}

func (s *Server) appendDiscover(b []byte) []byte {
	b = appendKey(b, "supportedVersions")
	b, _ = marshalInto(b, s.versions.all)
	b = appendKey(b, "capabilities")
	b, _ = marshalInto(b, s.capabilities(true, false))
	if s.opts.Instructions != "" {
		b = appendKey(b, "instructions")
		b = jsonrpc.AppendString(b, s.opts.Instructions)
	}
	return appendCacheable(b, false)
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
