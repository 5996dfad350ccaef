package ferry

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// wireParams is the union of the params members Ferry reads, so a request's
// params are decoded once.
type wireParams struct {
	Meta *requestMeta `json:"_meta"`

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
	Version       string          `json:"io.modelcontextprotocol/protocolVersion"`
	Caps          json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
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
	if p.Meta == nil || p.Meta.Version == "" {
		return false
	}
	return Modern(p.Meta.Version) || p.Meta.Caps != nil
}

// unsupportedVersion is the error for a version the server does not speak,
// listing those it does, as the 2026-07-28 error requires.
func (s *Server) unsupportedVersion(requested, msg string) *Error {
	return &Error{Code: CodeUnsupportedProtocolVersion, Message: msg,
		Data: map[string]any{"supported": s.versions.all, "requested": requested}}
}

// checkModern validates a modern request's _meta and fills r from it.
func (s *Server) checkModern(r *request, p *wireParams) error {
	if p.Meta == nil || p.Meta.Version == "" {
		return NewError(CodeInvalidParams, `missing _meta field "io.modelcontextprotocol/protocolVersion"`)
	}
	v := p.Meta.Version
	if !Modern(v) || !s.versions.supports(v) {
		return s.unsupportedVersion(v, "unsupported protocol version "+strconv.Quote(v))
	}
	if len(p.Meta.Caps) == 0 || p.Meta.Caps[0] != '{' {
		return NewError(CodeInvalidParams, `missing or invalid _meta field "io.modelcontextprotocol/clientCapabilities"`)
	}
	r.modern, r.version = true, v
	r.caps = parseClientCaps(p.Meta.Caps)
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
	if p.Meta != nil {
		r.progressToken = p.Meta.ProgressToken
	}
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
// details go to the log) and pending questions into input_required.
func (s *Server) safeDispatch(ctx context.Context, r *request, p *wireParams, b []byte) (_ []byte, err error) {
	start := len(b)
	defer func() {
		if v := recover(); v != nil {
			s.logError(ctx, "handler panicked", "method", r.method, "panic", v, "stack", string(debug.Stack()))
			b, err = b[:start], &Error{Code: CodeInternalError, Message: "internal error"}
		}
	}()
	b, err = s.dispatch(ctx, r, p, b)
	if errors.Is(err, errInputPending) {
		key := p.Name
		if r.method == "resources/read" {
			key = p.URI
		}
		r.resultType, r.resultMeta = "input_required", nil
		return s.appendInputRequired(b[:start], r.method, stateKey(ctx, key), p.Arguments, r.input), nil
	}
	return b, err
}

// stateKey is what a request state is bound to besides the method and the
// arguments: the tool, prompt or URI, and the caller, so that a state
// issued to one principal is refused for another.
func stateKey(ctx context.Context, key string) string {
	if p, ok := PrincipalFromContext(ctx); ok {
		return key + "\x00" + p
	}
	return key
}

// loadModernInput reads the answers a modern retry carries, for the
// methods that may ask the client something.
func (s *Server) loadModernInput(ctx context.Context, r *request, key string, p *wireParams) error {
	if !r.modern {
		return nil
	}
	in, err := s.loadInput(r.method, stateKey(ctx, key), p.Arguments, p.InputResponses, p.RequestState)
	r.input = in
	return err
}

// inputPending reports whether a modern handler left questions open.
func (r *request) inputPending() bool { return r.input != nil && len(r.input.requests) > 0 }

func methodNotFound(method string) error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// dispatch appends the result members of r to an open object.
func (s *Server) dispatch(ctx context.Context, r *request, p *wireParams, b []byte) (_ []byte, err error) {
	switch r.method {
	case "tools/list":
		b, err = s.listPage(r, p, b, "tools", func() ([]entry, string, error) { return pageOf(&s.tools, p, s.pageSize) })
	case "tools/call":
		return s.callTool(ctx, r, p, b)
	case "prompts/list":
		b, err = s.listPage(r, p, b, "prompts", func() ([]entry, string, error) { return pageOf(&s.prompts, p, s.pageSize) })
	case "prompts/get":
		b, err = s.getPrompt(ctx, r, p, b)
	case "resources/list":
		b, err = s.listPage(r, p, b, "resources", func() ([]entry, string, error) { return pageOf(&s.resources, p, s.pageSize) })
	case "resources/templates/list":
		b, err = s.listPage(r, p, b, "resourceTemplates", func() ([]entry, string, error) { return pageOf(&s.templates, p, s.pageSize) })
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
		err = s.legacyState(r, p)
	default:
		err = methodNotFound(r.method)
	}
	return b, err
}

func pageOf[T entry](reg *registry[T], p *wireParams, size int) ([]entry, string, error) {
	cursor := ""
	if p.Cursor != nil {
		cursor = *p.Cursor
	}
	items, next, err := reg.page(cursor, size)
	out := make([]entry, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out, next, err
}

// listPage appends one page of a list method's result.
func (s *Server) listPage(r *request, p *wireParams, b []byte, member string, page func() ([]entry, string, error)) ([]byte, error) {
	s.mu.RLock()
	items, next, err := page()
	if err == nil && len(items) == 0 && next == "" && !s.declares(member) {
		err = methodNotFound(r.method)
	}
	if err != nil {
		s.mu.RUnlock()
		return b, err
	}
	b = appendKey(b, member)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.wire()...)
	}
	s.mu.RUnlock()
	b = append(b, ']')
	if next != "" {
		b = appendKey(b, "nextCursor")
		b = jsonrpc.AppendString(b, next)
	}
	if r.modern {
		b = s.appendCacheable(b)
	}
	return b, nil
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
		return s.resources.len() > 0 || s.templates.len() > 0
	}
}

// listTTL is how long a modern client may cache a list.
const listTTL = 60_000

func (s *Server) appendCacheable(b []byte) []byte {
	b = appendKey(b, "ttlMs")
	b = strconv.AppendInt(b, listTTL, 10)
	b = appendKey(b, "cacheScope")
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
	return s.appendCacheable(b)
}

// callTool runs tools/call.
func (s *Server) callTool(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	s.mu.RLock()
	e, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return b, NewError(CodeInvalidParams, "unknown tool %q", p.Name)
	}
	if err := s.loadModernInput(ctx, r, p.Name, p); err != nil {
		return b, err
	}
	r.tool = p.Name
	res, err := e.handler(withRequest(ctx, r), &CallToolRequest{Name: p.Name, Arguments: p.Arguments})
	if r.inputPending() {
		return b, errInputPending
	}
	if err != nil {
		// The middleware chain turned every other error into a result.
		if pe := (*Error)(nil); errors.As(err, &pe) {
			return b, err
		}
		res = s.masked(withRequest(ctx, r), p.Name, err, nil)
	}
	if res == nil {
		res = &Result{Content: []Content{}}
	}
	if r.modern {
		r.resultMeta = res.Meta // merged with serverInfo by appendModernTail
		return res.appendMembers(b, false)
	}
	return res.appendMembers(b, true)
}

// masked logs an unexpected failure and returns the result the model sees:
// a sentence with a reference to the log record, never the error itself.
func (s *Server) masked(ctx context.Context, tool string, err error, stack []byte) *Result {
	var id [6]byte
	_, _ = rand.Read(id[:])
	ref := hex.EncodeToString(id[:])
	args := []any{"tool", tool, "ref", ref, "err", err}
	if stack != nil {
		args = append(args, "stack", string(stack))
	}
	s.logError(ctx, "tool failed unexpectedly", args...)
	setOutcome(ctx, OutcomeFailed, "")
	return ErrorResult("the tool failed unexpectedly (ref " + ref + ")")
}

func (s *Server) getPrompt(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	s.mu.RLock()
	e, ok := s.prompts.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return b, NewError(CodeInvalidParams, "unknown prompt %q", p.Name)
	}
	args, err := promptArgs(&e.prompt, p.Arguments)
	if err != nil {
		return b, err
	}
	if err := s.loadModernInput(ctx, r, p.Name, p); err != nil {
		return b, err
	}
	res, err := e.handler(withRequest(ctx, r), &GetPromptRequest{Name: p.Name, Arguments: args})
	if r.inputPending() {
		return b, errInputPending
	}
	if err != nil {
		return b, s.protocolError(ctx, "prompt", p.Name, err)
	}
	if res == nil {
		res = &PromptResult{}
	}
	if res.Description != "" {
		b = appendKey(b, "description")
		b = jsonrpc.AppendString(b, res.Description)
	}
	b = appendKey(b, "messages")
	b = append(b, '[')
	for i := range res.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		b = res.Messages[i].appendJSON(b)
	}
	return append(b, ']'), nil
}

// protocolError passes an [*Error] through and masks anything else.
func (s *Server) protocolError(ctx context.Context, kind, name string, err error) error {
	if pe := (*Error)(nil); errors.As(err, &pe) {
		return err
	}
	s.logError(ctx, kind+" failed", kind, name, "err", err)
	return &Error{Code: CodeInternalError, Message: "internal error"}
}

func (s *Server) readResource(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	notFound := func() error {
		code := CodeResourceNotFound
		if r.modern {
			code = CodeInvalidParams
		}
		return &Error{Code: code, Message: "resource not found: " + p.URI, Data: map[string]string{"uri": p.URI}}
	}
	if p.URI == "" {
		return b, NewError(CodeInvalidParams, "resources/read needs a uri")
	}
	h, vars, ok := s.findResource(p.URI)
	if !ok {
		return b, notFound()
	}
	if err := s.loadModernInput(ctx, r, p.URI, p); err != nil {
		return b, err
	}
	contents, err := h(withRequest(ctx, r), &ReadResourceRequest{URI: p.URI, Vars: vars})
	if r.inputPending() {
		return b, errInputPending
	}
	if errors.Is(err, ErrResourceNotFound) {
		return b, notFound()
	}
	if err != nil {
		return b, s.protocolError(ctx, "resource", p.URI, err)
	}
	b = appendKey(b, "contents")
	b = append(b, '[')
	for i := range contents {
		if i > 0 {
			b = append(b, ',')
		}
		b = contents[i].appendJSON(b)
	}
	b = append(b, ']')
	if r.modern {
		// A resource may change at any time (NotifyResourceUpdated) and
		// may be the caller's own: no caching, and never shared.
		b = appendKey(b, "ttlMs")
		b = append(b, '0')
		b = appendKey(b, "cacheScope")
		b = append(b, `"private"`...)
	}
	return b, nil
}

func (s *Server) complete(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	if !s.completes() {
		return b, methodNotFound(r.method)
	}
	if p.Ref == nil || p.Argument == nil || (p.Ref.Type != "ref/prompt" && p.Ref.Type != "ref/resource") {
		return b, NewError(CodeInvalidParams, "completion/complete needs a ref (ref/prompt or ref/resource) and an argument")
	}
	req := &CompleteRequest{RefType: p.Ref.Type, Name: p.Ref.Name, URI: p.Ref.URI,
		Argument: p.Argument.Name, Value: p.Argument.Value}
	if p.Context != nil {
		req.Context = p.Context.Arguments
	}
	h, err := s.completer(req)
	if err != nil {
		return b, err
	}
	res, err := h(withRequest(ctx, r), req)
	if err != nil {
		return b, s.protocolError(ctx, "completion", req.Argument, err)
	}
	if res == nil {
		res = &CompleteResult{}
	}
	values, hasMore := res.Values, res.HasMore
	if len(values) > maxCompletions {
		values, hasMore = values[:maxCompletions], true
	}
	if values == nil {
		values = []string{}
	}
	b = appendKey(b, "completion")
	b = append(b, `{"values":`...)
	b, _ = marshalInto(b, values)
	if res.Total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendInt(b, int64(res.Total), 10)
	}
	if hasMore {
		b = append(b, `,"hasMore":true`...)
	}
	return append(b, '}'), nil
}

// legacyState serves the methods that change a legacy session's state. A
// stateless session declares none of them.
func (s *Server) legacyState(r *request, p *wireParams) error {
	if r.state == nil {
		return methodNotFound(r.method)
	}
	switch r.method {
	case "logging/setLevel":
		l, ok := parseLevel(p.Level)
		if !ok {
			return NewError(CodeInvalidParams, "unknown log level %q: use debug, info, notice, warning, error, critical, alert or emergency", p.Level)
		}
		r.state.setLevel(l)
	default:
		s.mu.RLock()
		ok := s.resources.len() > 0 || s.templates.len() > 0
		s.mu.RUnlock()
		if !ok {
			return methodNotFound(r.method)
		}
		if p.URI == "" {
			return NewError(CodeInvalidParams, "%s needs a uri", r.method)
		}
		r.state.subscribe(p.URI, r.method == "resources/subscribe")
	}
	return nil
}
