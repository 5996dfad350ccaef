package route

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
)

// DefaultMaxResponseBytes is the size of a routed response beyond which it
// is cut, when [Options.MaxResponseBytes] is zero.
const DefaultMaxResponseBytes = 1 << 20

// DefaultHost is the Host of routed requests when [Options.Host] is empty.
const DefaultHost = "localhost"

// Options configures a [Binding]. The zero value is valid; every field
// documents its default.
type Options struct {
	// Forward names the headers of the MCP request copied to every routed
	// request, besides Authorization and Cookie (the caller's credentials,
	// for the service's own authentication) and traceparent and
	// tracestate, which always are. Nothing else of the MCP request
	// travels but what [New] lists. Host, Content-Type, Content-Length,
	// Transfer-Encoding, Connection, X-Request-Id and Mcp-* headers
	// cannot be forwarded: [Binding.Check] reports them. If empty, only
	// those four are copied.
	Forward []string
	// Header holds fixed headers set on every routed request, such as a
	// service token where there are no incoming credentials (stdio), or an
	// Accept other than the default (JSON preferred). A header of the same
	// name that the MCP request carries and that is forwarded
	// (Authorization, Cookie, Forward) replaces it, so an HTTP caller's own
	// credentials win. A value holding a control character, and the
	// headers Forward cannot name but Content-Type, are reported by
	// [Binding.Check]. If nil, none are set.
	//
	// A fixed Authorization is used by every call that brings none: served
	// over HTTP without an authenticator in front of the MCP endpoint, it
	// lends the service token to anonymous callers. Set one only on a
	// server served over stdio, or behind an authenticator that refuses
	// anonymous requests.
	Header http.Header
	// MaxResponseBytes bounds what is kept of a routed response's body: the
	// handler's writes beyond it fail, and the model is told the answer was
	// cut. If zero, [DefaultMaxResponseBytes] is used.
	MaxResponseBytes int64
	// Prefix is put before every bound path, and every path [Binding.Ask]
	// asks: with "/api", "GET /orders/{id}" is served as
	// "GET /api/orders/{id}". If empty, paths are used as they are.
	Prefix string
	// Host is the Host of routed requests. If empty, a routed request has
	// the Host of the MCP request it serves (which the MCP handler checked
	// against its allowed hosts), or [DefaultHost] over stdio.
	Host string
	// Router checks at start-up that every bound route exists, for a
	// handler that is not an [*http.ServeMux] itself (a mux wrapped in
	// middleware: pass [ServeMux] of the mux, or an adapter of another
	// router). If nil and the handler is an *http.ServeMux, the mux is
	// checked; otherwise each route that cannot be checked is logged as a
	// warning by [Binding.Check].
	Router Matcher
	// Groups are the groups of the tools bound that name none
	// ([ferry.Tool.Groups] nil). If nil, each tool's group is its route's
	// ([RouteGroup]: "GET /orders/{id}" is "orders"); empty for none.
	Groups []string
}

// A Binding binds tools to the routes of one http.Handler, usually the
// service's root handler with its middleware, so that an agent's call
// travels the pipeline every other caller's does. Create one with [New];
// bind tools with [AddTool] and [AddToolOut] (typed, as [ferry.AddTool])
// and [Binding.AddTool] (with a schema, as [ferry.Server.AddTool]), and
// job tools that ask several questions with [AddJob].
//
// A Binding is safe for concurrent use.
type Binding struct {
	srv    *ferry.Server
	h      http.Handler
	opts   Options
	host   string
	limit  int64
	router Matcher // nil when routes cannot be checked
	fixed  []headerValue
	// forward are the headers copied from the MCP request, canonical.
	forward []string

	mu    sync.Mutex // guards plans and problems
	plans []*plan
	// problems are the errors found at registration, which Check reports.
	problems []error
}

// New returns a Binding of tools on srv to the routes of h. It adds a
// start-up check to srv (see [ferry.Server.AddCheck]): every problem with
// a bound tool (a pattern that does not parse, a wildcard no argument
// fills, an object bound to the query string) and every route h does not
// serve is reported there, naming the tool and the route. It panics if
// srv or h is nil.
//
// A routed request carries, and nothing else of the MCP request: Mcp-Tool
// (the tool's name), Mcp-Session-Id when the call has a legacy session,
// X-Request-Id (new for each routed request, and in the errors and logs of
// the call), traceparent and tracestate when the MCP request carried them,
// Authorization, Cookie and the headers of [Options.Forward], the fixed
// [Options.Header], Accept, and Content-Type for a body. Its context is the
// call's: cancelling the call cancels it, and [ferry.PrincipalFromContext]
// reads the caller in the route's handler. [FromAgent] tells a routed
// request from others.
func New(srv *ferry.Server, h http.Handler, opts *Options) *Binding {
	if srv == nil || h == nil {
		panic("route: New needs a server and a handler") //nolint:forbidigo // a programmer error at construction, documented
	}
	b := &Binding{srv: srv, h: h}
	if opts != nil {
		b.opts = *opts
		b.opts.Forward = slices.Clone(opts.Forward)
		b.opts.Header = opts.Header.Clone()
	}
	b.host = b.opts.Host
	b.limit = b.opts.MaxResponseBytes
	if b.limit <= 0 {
		b.limit = DefaultMaxResponseBytes
	}
	b.fixed = fixedHeaders(b.opts.Header)
	b.forward = forwardList(b.opts.Forward)
	b.problems = checkHeaderOptions(&b.opts)
	b.router = b.opts.Router
	if mux, ok := h.(*http.ServeMux); ok && b.router == nil {
		b.router = ServeMux(mux)
	}
	srv.AddCheck(b.Check)
	return b
}

// AddTool binds t to the route pattern, "METHOD /path" in the syntax of
// [http.ServeMux] (methods GET, HEAD, POST, PUT, PATCH and DELETE), with
// the input schema t gives ([ferry.Tool.InputSchema] or
// RawInputSchema). Arguments fill the request by the rule of the package
// documentation; since there is no Go type, none is moved by a tag.
// The hints follow the method unless t sets them (see the package
// documentation). Problems are reported by [Binding.Check].
func (b *Binding) AddTool(t ferry.Tool, pattern string) {
	b.add(t, pattern, nil)
}

// AddPlaced binds t to the route pattern as [Binding.AddTool] does, and
// places the arguments in names as the in tag of a typed tool's field
// places it (see the package documentation): in maps an argument's name
// to "query", "query=name" (the query parameter name, when it is not the
// argument's), "header=Name", "path" or "body" (the argument is the whole
// JSON body). It is for tools whose input schema is built at run time,
// such as from an OpenAPI document, where no Go type carries the tags.
// A name that is not a property of the input schema is a problem
// [Binding.Check] reports.
func (b *Binding) AddPlaced(t ferry.Tool, pattern string, in map[string]string) {
	b.add(t, pattern, maps.Clone(in))
}

// AddTool binds a tool to the route pattern (see [Binding.AddTool]), with
// the input schema derived from In, a struct, as [ferry.AddTool] derives it:
// the server checks every call's arguments against it before the route is
// served. Fields tagged in:"query" go to the query string and fields
// tagged in:"header=Name" to that header, whatever the method.
func AddTool[In any](b *Binding, t ferry.Tool, pattern string) {
	b.addTyped(t, pattern, reflect.TypeFor[In](), nil)
}

// AddToolOut is [AddTool] with an output type: Out's schema is the tool's
// output schema, and the route's 2xx JSON object answer is its structured
// content, as the route sends it (the route, not the binding, is trusted
// to answer in that shape).
func AddToolOut[In, Out any](b *Binding, t ferry.Tool, pattern string) {
	b.addTyped(t, pattern, reflect.TypeFor[In](), reflect.TypeFor[Out]())
}

// addTyped derives t's schemas from in and out (if not nil), then binds it.
func (b *Binding) addTyped(t ferry.Tool, pattern string, in, out reflect.Type) {
	if t.InputSchema != nil || t.RawInputSchema != nil || t.OutputSchema != nil || t.RawOutputSchema != nil {
		b.problem(t.Name, pattern, errors.New("its schemas come from its Go types: leave InputSchema and OutputSchema unset"))
		return
	}
	s, err := schema.ForType(in, nil)
	if err != nil {
		b.problem(t.Name, pattern, fmt.Errorf("input type %v: %w", in, err))
		return
	}
	t.InputSchema = s
	if out != nil {
		os, err := schema.ForType(out, nil)
		if err != nil {
			b.problem(t.Name, pattern, fmt.Errorf("output type %v: %w", out, err))
			return
		}
		if os.Type != "object" {
			b.problem(t.Name, pattern, fmt.Errorf("output type %v: its schema must be an object", out))
			return
		}
		c := *os
		c.Nullable = false
		t.OutputSchema = &c
	}
	tags, err := fieldTags(in)
	if err != nil {
		b.problem(t.Name, pattern, err)
		return
	}
	b.add(t, pattern, tags)
}

// add plans t's route and registers it with the server.
func (b *Binding) add(t ferry.Tool, text string, tags map[string]string) {
	pl, problems := newPlan(&t, text, b.opts.Prefix, tags)
	if pl != nil {
		problems = append(problems, b.checkFieldHeaders(pl)...)
	}
	if len(problems) > 0 {
		for _, err := range problems {
			b.problem(t.Name, text, err)
		}
		return
	}
	applyHints(&t, pl.pat.method)
	if t.Summarize == nil && !t.ReadOnly {
		// What a person confirming a call reads (ferry.ServerOptions.Confirm).
		sent := "Sends " + strings.Join(strings.Fields(text), " ") + " to the service."
		t.Summarize = func(context.Context, *ferry.CallToolRequest) (string, error) { return sent, nil }
	}
	if t.Groups == nil {
		t.Groups = routeGroups(b.opts.Groups, text)
	}
	b.mu.Lock()
	b.plans = append(b.plans, pl)
	b.mu.Unlock()
	b.srv.AddTool(t, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return b.call(ctx, pl, req)
	})
}

// checkFieldHeaders reports the fields of pl tagged to a header the
// options forward or fix: the model's value would replace the caller's
// credentials or the service token.
func (b *Binding) checkFieldHeaders(pl *plan) []error {
	var problems []error
	for _, f := range pl.fields {
		switch {
		case f.place != inHeader:
		case slices.Contains(b.forward, f.header):
			problems = append(problems, fmt.Errorf("field %q: header %s is forwarded from the MCP request (Options.Forward)", f.name, f.header))
		case slices.ContainsFunc(b.fixed, func(h headerValue) bool { return h.key == f.header }):
			problems = append(problems, fmt.Errorf("field %q: header %s is fixed by Options.Header", f.name, f.header))
		}
	}
	return problems
}

// problem records a problem of a tool that is not added.
func (b *Binding) problem(tool, pattern string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, fmt.Errorf("route: tool %q, route %q: %w", tool, pattern, err))
}

// applyHints sets t's hints from the route's method: GET and HEAD are
// read-only; PUT and DELETE are idempotent. Every other hint is t's, and
// its zero value is the protocol's cautious default: a route that writes
// is reported destructive unless t says [ferry.Tool.Additive], POST and
// PATCH not idempotent unless t says so.
func applyHints(t *ferry.Tool, method string) {
	switch method {
	case http.MethodGet, http.MethodHead:
		t.ReadOnly = true
	case http.MethodPut, http.MethodDelete:
		t.Idempotent = true
	}
}
