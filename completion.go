package ferry

import (
	"context"
	"strconv"
	"strings"
)

// CompleteRequest is a completion/complete: the client wants suggestions
// for the value of an argument of a prompt or a resource template.
type CompleteRequest struct {
	// RefType is "ref/prompt" or "ref/resource".
	RefType string
	// Name is the prompt's name, for ref/prompt.
	Name string
	// URI is the resource template, for ref/resource.
	URI string
	// Argument is the argument being completed and Value what is typed so far.
	Argument, Value string
	// Context holds the values of arguments already chosen.
	Context map[string]string
}

// CompleteResult holds suggestions, most relevant first (at most 100 are
// sent). Total is the number of suggestions in all, when known; HasMore says
// there are more than were sent.
type CompleteResult struct {
	Values  []string
	Total   int
	HasMore bool
}

// Completer suggests values for one argument of a prompt or one variable of
// a resource template. A returned [*Error] reaches the client as is.
type Completer func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)

// maxCompletions is the protocol's cap on completion values.
const maxCompletions = 100

// completeFrom suggests the values that start with what is typed, without
// regard to case, in their order.
func completeFrom(values []string, typed string) *CompleteResult {
	var out []string
	for _, v := range values {
		if len(v) >= len(typed) && strings.EqualFold(v[:len(typed)], typed) {
			out = append(out, v)
		}
	}
	return &CompleteResult{Values: out, Total: len(out)}
}

// completer finds what answers a completion request: the argument's or
// variable's own Completer, its Values, or the server's handler. It returns
// a protocol error for a prompt, template or argument that does not exist.
func (s *Server) completer(ctx context.Context, req *CompleteRequest) (Completer, error) {
	var own Completer
	var values []string
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch req.RefType {
	case "ref/prompt":
		e, ok := s.prompts.get(req.Name)
		if !ok || !inView(ctx, e.prompt.Groups) || !s.allowsEntry(ctx, e.prompt.Scopes, e.prompt.Roles) {
			return nil, unknownPrompt(req.Name)
		}
		a := e.prompt.argument(req.Argument)
		if a == nil {
			return nil, NewError(CodeInvalidParams, "prompt %q has no argument %q; its arguments are: %s", req.Name, req.Argument, e.prompt.argumentNames())
		}
		own, values = a.Complete, a.Values
	case "ref/resource":
		e, ok := s.templates.get(req.URI)
		if !ok || !inView(ctx, e.tmpl.Groups) || !s.allowsEntry(ctx, e.tmpl.Scopes, e.tmpl.Roles) {
			return nil, NewError(CodeInvalidParams, "unknown resource template %q", req.URI)
		}
		if !e.hasVar(req.Argument) {
			return nil, NewError(CodeInvalidParams, "resource template %q has no variable %q", req.URI, req.Argument)
		}
		own, values = e.tmpl.Complete[req.Argument], e.tmpl.Values[req.Argument]
		if req.URI == s.schemaTemplate && values == nil {
			for _, t := range s.tools.sorted {
				if s.visibleTool(ctx, &t.info) { // no hidden tool's name
					values = append(values, t.tool.Name)
				}
			}
		}
	}
	switch {
	case own != nil:
		return own, nil
	case values != nil:
		return func(_ context.Context, r *CompleteRequest) (*CompleteResult, error) {
			return completeFrom(values, r.Value), nil
		}, nil
	case s.opts.CompletionHandler != nil:
		return s.opts.CompletionHandler, nil
	}
	return func(context.Context, *CompleteRequest) (*CompleteResult, error) { return &CompleteResult{}, nil }, nil
}

// complete answers completion/complete.
func (s *Server) complete(ctx context.Context, r *request, b []byte) ([]byte, error) {
	p := r.params
	if p.Ref == nil || p.Argument == nil || (p.Ref.Type != "ref/prompt" && p.Ref.Type != "ref/resource") {
		return b, NewError(CodeInvalidParams, "completion/complete needs a ref (ref/prompt or ref/resource) and an argument")
	}
	req := &CompleteRequest{RefType: p.Ref.Type, Name: p.Ref.Name, URI: p.Ref.URI,
		Argument: p.Argument.Name, Value: p.Argument.Value}
	if p.Context != nil {
		req.Context = p.Context.Arguments
	}
	h, err := s.completer(ctx, req)
	if err != nil {
		return b, err
	}
	res, err := h(ctx, req)
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
