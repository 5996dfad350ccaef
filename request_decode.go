package ferry

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

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

// incoming is a decoded message: the envelope, its params, and the error
// to answer when its params did not decode (invalid params).
type incoming struct {
	m    *jsonrpc.Message
	kind jsonrpc.Kind
	p    *wireParams
	perr error
	derr error // a batch element's decoding error (see [decodeBatch])
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

// beModern makes r a request of the modern era, with the version and
// capabilities its _meta names, as sent: [Server.checkModern] judges them.
func (r *request) beModern() {
	r.modern, r.version = true, string(r.params.Meta.Version)
	r.caps, r.level = r.params.Meta.Caps.caps, levelOff
}

// checkModern validates a modern request's _meta (see [request.beModern])
// and sets its log level.
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
	if p.Meta.LogLevel != "" {
		l, ok := parseLevel(p.Meta.LogLevel)
		if !ok {
			return NewError(CodeInvalidParams, "unknown log level %q", p.Meta.LogLevel)
		}
		r.level = l
	}
	return nil
}

// checkShape refuses a message (or batch) that nests deeper than
// [ServerOptions.MaxJSONDepth] (a parse error: it is not decoded) or
// whose envelope repeats a member or has a case variant of one (an
// invalid request), before it is decoded. The error has no id, since the
// id cannot be trusted.
func (s *Server) checkShape(data []byte) error {
	err := jsonrpc.CheckShape(data, s.maxDepth)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jsonrpc.ErrTooDeep):
		return &Error{Code: CodeParseError, Message: "parse error: the message nests arrays and objects more than " +
			strconv.Itoa(s.maxDepth) + " levels deep"}
	}
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: " + strings.TrimPrefix(err.Error(), "jsonrpc: ")}
}
