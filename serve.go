package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds the engine: [Server.serve] answers a request that its
// transport has read and resolved, on every transport and in both eras.

// serve answers r, resolved (see [Server.resolve]), and appends its
// response to b: the result its method's handler appends, an
// input_required result when a modern handler asked the client something,
// or an error. The observer, if any, is told of it. A handler's panic is
// answered with -32603, the details logged under a reference the error's
// data repeats, and b keeps what it held before.
func (s *Server) serve(ctx context.Context, r *request, b []byte) (out []byte) {
	var obs *observation
	if s.opts.Observer != nil {
		ctx, obs = s.observeStart(ctx, r)
	}
	start := len(b)
	defer func() {
		if v := recover(); v != nil {
			ref := newRef()
			s.logError(ctx, "handler panicked", "method", r.method, "ref", ref, "panic", v, "stack", string(debug.Stack()))
			out = s.failed(r, b[:start], internalError(ref))
		}
		if obs != nil {
			if rt := r.reply.started; rt != nil && r.reply.failed == 0 {
				rt.observed(ctx, obs) // the call ends when its task does
			} else {
				s.observeEnd(ctx, r, obs, out[start:])
			}
		}
	}()
	out = jsonrpc.AppendResultHead(b, r.id)
	out = append(out, '{')
	head := len(out)
	err := r.err
	if err == nil {
		out, err = r.row.serve(s, ctx, r, out)
	}
	if errors.Is(err, errInputPending) {
		out, err = s.appendInputRequired(ctx, r, out[:head])
	}
	if err != nil {
		return s.failed(r, b[:start], err)
	}
	if r.modern {
		out = s.appendModernTail(out, r)
	} else if len(r.reply.resultMeta) > 0 {
		out = appendMeta(out, r.reply.resultMeta, nil)
	}
	return append(out, "}}"...)
}

// failed appends the error response to r, err, and records its code.
func (s *Server) failed(r *request, b []byte, err error) []byte {
	r.reply.failed = CodeOf(err)
	return appendErrorResponse(b, r.id, err)
}

// errInputPending reports that a handler asked the client something in the
// modern era: the answer is an input_required result.
var errInputPending = errors.New("ferry: input pending")

// appendModernTail appends the members every modern result carries: its
// resultType ("complete", or "input_required" when the handler asked
// the client something) and a _meta holding serverInfo, merged with the
// result's own _meta entries.
func (s *Server) appendModernTail(b []byte, r *request) []byte {
	b = appendKey(b, "resultType")
	switch {
	case r.reply.inputRequired:
		b = append(b, `"input_required"`...)
	case r.reply.task:
		b = append(b, `"task"`...)
	default:
		b = append(b, `"complete"`...)
	}
	if len(r.reply.resultMeta) > 0 {
		return appendMeta(b, r.reply.resultMeta, map[string]any{metaServerInfo: json.RawMessage(s.infoJSON())})
	}
	b = appendKey(b, "_meta")
	b = append(b, `{"`+metaServerInfo+`":`...)
	b = append(b, s.infoJSON()...)
	return append(b, '}')
}

const metaServerInfo = "io.modelcontextprotocol/serverInfo"

func methodNotFound(method string) error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
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

// observation is what the observer's Start was told, for its End.
type observation struct {
	info  RequestInfo
	start time.Time
}

// observeStart tells the observer of r; obs is nil when Start panicked
// (the panic is logged, and the request is served unobserved).
func (s *Server) observeStart(ctx context.Context, r *request) (octx context.Context, obs *observation) {
	obs = &observation{info: s.requestInfo(r), start: time.Now()}
	defer func() {
		if v := recover(); v != nil {
			s.observerPanicked(ctx, "Start", &obs.info, v)
			octx, obs = ctx, nil
		}
	}()
	return s.opts.Observer.Start(ctx, &obs.info), obs
}

// observeEnd tells the observer how r ended; resp is its response.
func (s *Server) observeEnd(ctx context.Context, r *request, obs *observation, resp []byte) {
	end := RequestEnd{Duration: time.Since(obs.start), ToolError: r.reply.toolError}
	if r.reply.failed != 0 {
		end.ErrorCode = r.reply.failed
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(resp, &e) == nil {
			end.ErrorMessage = e.Error.Message
		}
	} else if at := len(jsonrpc.AppendResultHead(nil, r.id)); at < len(resp) {
		end.Result = json.RawMessage(resp[at : len(resp)-1]) // without the envelope's closing brace
	}
	defer func() {
		if v := recover(); v != nil {
			s.observerPanicked(ctx, "End", &obs.info, v)
		}
	}()
	s.opts.Observer.End(ctx, &obs.info, end)
}

func (s *Server) observerPanicked(ctx context.Context, where string, info *RequestInfo, v any) {
	s.logError(ctx, "observer panicked", "in", where, "method", info.Method, "ref", newRef(),
		"panic", v, "stack", string(debug.Stack()))
}

// requestInfo is what an observer is told of r as it starts.
func (s *Server) requestInfo(r *request) RequestInfo {
	info := RequestInfo{Method: r.method, ID: idText(r.id), ProtocolVersion: r.version, Modern: r.modern,
		Transport: TransportStdio, Unknown: r.row == nil}
	if r.params.Meta.TraceContext != nil {
		info.Trace = *r.params.Meta.TraceContext
	}
	if len(r.params.Meta.ClientInfo) > 0 {
		info.Client = clientName(r.params.Meta.ClientInfo)
	}
	if r.peer.header != nil {
		info.Transport, info.SessionID = TransportHTTP, r.peer.session
	}
	if r.row == nil {
		return info
	}
	info.Name = r.target.name
	switch r.row.target {
	case targetTool, targetPrompt:
		info.Target = TargetTool
		if r.row.target == targetPrompt {
			info.Target = TargetPrompt
		}
		info.Arguments = r.params.Arguments
		info.Unknown = !r.target.found()
	case targetResource, targetURI:
		info.Target = TargetResource
	}
	return info
}
