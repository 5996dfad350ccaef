package route

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/ferry-mcp/ferry"
)

// agentKey is the context key of a routed request's [call].
type agentKey struct{}

// FromAgent reports whether r is a request a [Binding] routed for a tool
// call, and the tool's name. It reads r's context, which only the binding
// sets, so unlike the Mcp-Tool header it cannot be forged by another
// caller of the service.
func FromAgent(r *http.Request) (tool string, ok bool) {
	c, ok := r.Context().Value(agentKey{}).(*call)
	if !ok {
		return "", false
	}
	return c.tool, true
}

// RequestID returns the X-Request-Id a [Binding] gave r, and false when r
// was not routed by one. The same id is in the errors, and so in the logs,
// of the call.
func RequestID(r *http.Request) (string, bool) {
	c, ok := r.Context().Value(agentKey{}).(*call)
	if !ok {
		return "", false
	}
	return c.id, true
}

// call serves one call of the tool planned by pl.
func (b *Binding) call(ctx context.Context, pl *plan, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
	c := &call{tool: req.Name, id: newRequestID()}
	body, fields, errs, err := pl.build(c, req.Arguments)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return ferry.NewInvalidArgumentsResult(errs), nil
	}
	rec, err := b.serve(ctx, c, pl.pat.method, body, fields)
	if err != nil {
		return nil, err
	}
	defer rec.release()
	return b.toolResult(c, pl, rec)
}

// hostFor returns the Host of a request routed for the call of ctx.
func (b *Binding) hostFor(ctx context.Context) string {
	if b.host != "" {
		return b.host
	}
	if ci, ok := ferry.CallInfoFromContext(ctx); ok && ci.Host != "" {
		return ci.Host
	}
	return DefaultHost
}

// serve builds the request c describes and serves it with the binding's
// handler. A panic in the handler is returned as an error, and so is the
// call's context ending; a context that has already ended serves nothing.
func (b *Binding) serve(ctx context.Context, c *call, method string, body []byte, fields []headerValue) (rec *recorded, err error) {
	if ctx.Err() != nil { // an ended call starts nothing
		return nil, fmt.Errorf("route: %s %s (request id %s): %w", method, c.uri, c.id, context.Cause(ctx))
	}
	r := &http.Request{
		Method: method, URL: &c.u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: b.header(ctx, c, fields, body != nil), Body: http.NoBody,
		Host: b.hostFor(ctx), RemoteAddr: "mcp", RequestURI: c.uri,
	}
	if body != nil {
		c.body.Reset(body)
		r.Body, r.ContentLength = &c.body, int64(len(body))
	}
	r = r.WithContext(context.WithValue(ctx, agentKey{}, c))
	rec = getRecorded(b.limit)
	c.w.attach(rec)
	defer func() {
		c.w.detach()
		if v := recover(); v != nil {
			rec, err = nil, c.panicError(method, v) // rec is not reused: the handler may hold it
		}
	}()
	b.h.ServeHTTP(&c.w, r)
	if ctx.Err() != nil {
		rec.release()
		return nil, fmt.Errorf("route: %s %s (request id %s): %w", method, c.uri, c.id, context.Cause(ctx))
	}
	return rec, nil
}

// panicError is the error of a handler that panicked with v.
func (c *call) panicError(method string, v any) error {
	if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
		return fmt.Errorf("route: the handler of %s %s aborted the response (request id %s)", method, c.uri, c.id)
	}
	return fmt.Errorf("route: the handler of %s %s panicked (request id %s): %v\n%s", method, c.uri, c.id, v, debug.Stack())
}
