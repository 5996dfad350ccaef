package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// Answer is a route's answer to [Binding.Ask]: whatever its status, it is
// an answer, not an error. [Answer.Err] turns a refusal into the error a
// tool returns.
type Answer struct {
	// Status is the HTTP status (200 when the handler set none).
	Status int
	// Header holds the response's headers.
	Header http.Header
	// Body is the response's body, at most [Options.MaxResponseBytes] of it.
	Body []byte
	// Truncated says the body was longer, and is cut.
	Truncated bool
	// Problem is the problem document of an error answer (see
	// [Problem]), or nil.
	Problem *Problem
	// RequestID is the X-Request-Id the request carried.
	RequestID string

	method, uri string
	limit       int64
}

// IsError reports whether the answer is not a success (2xx).
func (a *Answer) IsError() bool { return a.Status < 200 || a.Status > 299 }

// Err returns nil for a success, and otherwise the error a tool returns
// for the answer, as for a route-bound tool: a refusal for 4xx, 429 and
// 503 ("conflict: Period 2026-11 is locked."), which the model reads; an
// unexpected error for anything else, which the server masks and logs.
func (a *Answer) Err() error {
	if !a.IsError() {
		return nil
	}
	return answerError(a.method, a.uri, a.RequestID, a.Status, a.Header, a.Body, nil)
}

// Result returns the result a route-bound tool would for the answer: for a
// success, its body as text (and as structured content when it is a JSON
// object); otherwise [Answer.Err].
func (a *Answer) Result() (*ferry.ToolResult, error) {
	if err := a.Err(); err != nil {
		return nil, err
	}
	rec := recorded{header: a.Header, status: a.Status, body: a.Body, cut: a.Truncated}
	return success(&rec, a.limit), nil
}

// Decode decodes the answer's JSON body into v. A cut body is an error.
func (a *Answer) Decode(v any) error {
	if a.Truncated {
		return fmt.Errorf("route: %s %s: the answer is longer than %d bytes, which is all that is kept", a.method, a.uri, a.limit)
	}
	if err := json.Unmarshal(a.Body, v); err != nil {
		return fmt.Errorf("route: decoding the answer of %s %s: %w", a.method, a.uri, err)
	}
	return nil
}

// bindingKey is the context key of the [Binding] of a job tool.
type bindingKey struct{}

// AddJob registers a typed tool, as [ferry.AddTool] does, whose handler
// asks the binding's routes its questions with [Ask]: a job such as
// closing a month, which posts accruals and then locks the period. Its
// hints are the tool's own; a job that writes must say so. Each question
// carries the headers a route-bound tool's request does (the caller's
// credentials, Mcp-Tool with the job's name, a new X-Request-Id).
func AddJob[In, Out any](b *Binding, t ferry.Tool, h func(ctx context.Context, in In) (Out, error)) {
	if h == nil {
		panic("route: AddJob needs a handler") //nolint:forbidigo // a programmer error at registration, documented
	}
	if t.Groups == nil { // the job's own package's, not this one's
		t.Groups = slices.Clone(b.opts.Groups)
		if t.Groups == nil {
			t.Groups = []string{}
			if g := ferry.GroupOfFunc(h); g != "" {
				t.Groups = []string{g}
			}
		}
	}
	ferry.AddTool(b.srv, t, func(ctx context.Context, in In) (Out, error) {
		return h(context.WithValue(ctx, bindingKey{}, b), in)
	})
}

// Ask asks a question of the binding of the job tool whose call ctx
// belongs to (see [AddJob]), as [Binding.Ask] does. It fails when ctx is
// not a job tool's.
func Ask(ctx context.Context, route string, body any) (*Answer, error) {
	b, ok := ctx.Value(bindingKey{}).(*Binding)
	if !ok {
		return nil, errors.New("route: Ask needs the context of a job tool added with AddJob; elsewhere, call Binding.Ask")
	}
	return b.Ask(ctx, route, body)
}

// Ask serves one request on the binding's handler during a tool call:
// route is a method and a concrete path, with a query if any ("POST
// /ledger/accruals", "GET /orders?status=open"), under [Options.Prefix];
// body, if not nil, is sent as JSON (a []byte or [json.RawMessage] as it
// is, anything else marshalled). The request carries what a route-bound
// tool's does, from the call of ctx. Ask returns an error when it could not
// ask: ctx is not a tool call's or ended, route or body is bad, or the
// handler panicked; any status is an [Answer].
//
// The route is read as written, so a value from the model put into it
// must be escaped: [net/url.PathEscape] for a segment,
// [net/url.Values.Encode] for a query. Unescaped, "1?admin=true" would
// add a parameter; a path that climbs ("..") is refused either way.
func (b *Binding) Ask(ctx context.Context, route string, body any) (*Answer, error) {
	ci, ok := ferry.CallInfoFromContext(ctx)
	if !ok || ci.Tool == "" {
		return nil, errors.New("route: Ask needs the context of a tool call")
	}
	method, u, err := b.askTarget(route)
	if err != nil {
		return nil, err
	}
	data, err := askBody(method, body)
	if err != nil {
		return nil, fmt.Errorf("route: Ask %s: %w", route, err)
	}
	c := &call{tool: ci.Tool, id: newRequestID(), u: *u}
	c.uri = u.RequestURI()
	rec, err := b.serve(ctx, c, method, data, nil)
	if err != nil {
		return nil, err
	}
	a := &Answer{Status: rec.code(), Header: rec.header, Body: bytes.Clone(rec.body), Truncated: rec.cut,
		RequestID: c.id, method: method, uri: c.uri, limit: b.limit}
	rec.release() // the answer keeps the headers: release does not reuse them
	if a.IsError() {
		a.Problem = decodeProblem(a.Header.Get("Content-Type"), a.Body)
	}
	return a, nil
}

// askTarget reads an Ask's route.
func (b *Binding) askTarget(route string) (string, *url.URL, error) {
	method, target, ok := strings.Cut(route, " ")
	if !ok || !isMethod(method) {
		return "", nil, fmt.Errorf("route: Ask %q: a route is one of %s and a path", route, strings.Join(methods, ", "))
	}
	u, err := url.ParseRequestURI(b.opts.Prefix + strings.TrimSpace(target))
	if err != nil || !strings.HasPrefix(u.Path, "/") || u.Host != "" || !clean(u.Path) {
		return "", nil, fmt.Errorf("route: Ask %q: the path must be absolute and clean, without a host", route)
	}
	return method, u, nil
}

// askBody encodes an Ask's body.
func askBody(method string, body any) ([]byte, error) {
	if body == nil {
		return nil, nil
	}
	if method == http.MethodGet || method == http.MethodHead {
		return nil, fmt.Errorf("a %s request has no body", method)
	}
	var data []byte
	switch v := body.(type) {
	case json.RawMessage:
		data = v
	case []byte:
		data = v
	default:
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	if !json.Valid(data) {
		return nil, errors.New("the body is not JSON")
	}
	return data, nil
}

// clean reports whether p, absolute, has no empty, "." or ".." segment
// (but for a final slash), as ServeMux serves without a redirect.
func clean(p string) bool {
	return path.Clean(p) == strings.TrimSuffix(p, "/") || p == "/"
}
