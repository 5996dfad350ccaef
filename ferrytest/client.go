package ferrytest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// Options configures a [Client]. The zero value connects in the modern
// era (2026-07-28), anonymously, answering no server questions.
type Options struct {
	// Protocol is the protocol version; if empty, 2026-07-28. A legacy
	// version ("2025-11-25", "2025-06-18", "2025-03-26") opens a stateful
	// legacy session, in which the server asks its questions directly.
	Protocol string
	// Principal, if not nil, is the caller every request is served as
	// (set on the request context as [ferry.WithPrincipal] does), so that
	// tools that need scopes or roles can be tested without tokens.
	Principal *ferry.Principal
	// Elicit, CreateMessage and ListRoots answer the server's questions,
	// as in [client.Options].
	Elicit        func(ctx context.Context, p *client.ElicitParams) (*client.ElicitResult, error)
	CreateMessage func(ctx context.Context, p *client.CreateMessageParams) (*client.CreateMessageResult, error)
	ListRoots     func(ctx context.Context) ([]client.Root, error)
	// Header is sent with every request: credentials for an
	// authenticator in front of the server, a trace context, any header
	// the server or its middleware reads. Its keys may be written in any
	// case ("X-API-Key"): they reach the server in canonical form.
	Header http.Header
	// HTTP configures the in-memory handler [NewClient] builds. If nil, a
	// stateful one (legacy sessions keep their questions open).
	// [DialHandler] and [DialHTTP] ignore it.
	HTTP *ferry.HTTPOptions
}

// Client is a [client.Client] connected to an MCP server for a test: in
// memory to a [ferry.Server] ([NewClient]) or to any server's handler
// ([DialHandler]), or over HTTP ([DialHTTP]). Its methods fail the test
// on a transport or protocol error, with t.Fatalf, so they belong on the
// test's goroutine; [Client.Raw] returns the underlying client, whose
// methods return their errors, for other goroutines and for tests that
// expect an error. It is safe for concurrent use.
type Client struct {
	t testing.TB
	c *client.Client
}

// NewClient connects to srv in memory and closes the connection when the
// test ends. opts may be nil. It fails the test if the server fails its
// start-up check or does not answer the handshake.
func NewClient(t testing.TB, srv *ferry.Server, opts *Options) *Client {
	t.Helper()
	if err := srv.Check(); err != nil {
		t.Fatalf("ferrytest: the server fails its start-up check:\n%v", err)
	}
	hopts := &ferry.HTTPOptions{Stateful: true}
	if opts != nil && opts.HTTP != nil {
		hopts = opts.HTTP
	}
	return DialHandler(t, ferry.NewHTTPHandler(srv, hopts), opts)
}

// DialHandler connects in memory to the MCP server that h serves at /mcp
// (requests go to http://localhost/mcp, with no socket): a Ferry server
// behind the application's own middleware or router, or any MCP server's
// [net/http.Handler]. The connection is closed when the test ends. opts
// may be nil. It fails the test if the server does not answer the
// handshake.
func DialHandler(t testing.TB, h http.Handler, opts *Options) *Client {
	t.Helper()
	o := options(opts)
	if o.Principal != nil {
		h = withPrincipal(h, o.Principal)
	}
	c, err := client.DialHandler(context.WithoutCancel(t.Context()), h, clientOptions(o))
	return connected(t, c, err, o)
}

// DialHTTP connects to the MCP endpoint at url, such as a server the test
// started in another process, and closes the connection when the test
// ends. opts may be nil; [Options.Principal] needs a server in the test's
// process and fails the test. It fails the test if the server does not
// answer the handshake.
func DialHTTP(t testing.TB, url string, opts *Options) *Client {
	t.Helper()
	o := options(opts)
	if o.Principal != nil {
		t.Fatalf("ferrytest: Options.Principal sets the caller of an in-process server; over HTTP, send credentials in Options.Header")
	}
	c, err := client.DialHTTP(context.WithoutCancel(t.Context()), url, clientOptions(o))
	return connected(t, c, err, o)
}

// options copies opts, or returns the zero Options, with the default
// protocol set.
func options(opts *Options) Options {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Protocol == "" {
		o.Protocol = client.Version20260728
	}
	return o
}

func clientOptions(o Options) *client.Options {
	return &client.Options{
		Protocol: o.Protocol, Header: canonical(o.Header), Elicit: o.Elicit, CreateMessage: o.CreateMessage, ListRoots: o.ListRoots,
		Name: "ferrytest", Version: "1",
	}
}

// canonical copies h with its keys in canonical form, as a server reading
// from the network sees them: an in-process handler gets the map as it
// is, and its Header.Get would miss "X-API-Key".
func canonical(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	c := make(http.Header, len(h))
	for k, vs := range h {
		for _, v := range vs {
			c.Add(k, v)
		}
	}
	return c
}

// connected ends a Dial: it fails t on err and closes c when t ends.
func connected(t testing.TB, c *client.Client, err error, o Options) *Client {
	t.Helper()
	if err != nil {
		t.Fatalf("ferrytest: connecting (%s): %v", o.Protocol, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &Client{t: t, c: c}
}

// withPrincipal serves every request of h as p.
func withPrincipal(h http.Handler, p *ferry.Principal) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(ferry.WithPrincipal(r.Context(), p)))
	})
}

// Raw returns the underlying client, whose methods return their errors.
func (c *Client) Raw() *client.Client { return c.c }

// Protocol returns the negotiated protocol version.
func (c *Client) Protocol() string { return c.c.Protocol() }

// CallTool calls a tool and returns its result, which may be an error
// result (IsError): only a protocol or transport error fails the test.
func (c *Client) CallTool(ctx context.Context, name string, args any) *client.ToolResult {
	c.t.Helper()
	res, err := c.c.CallTool(ctx, name, args)
	return must(c, res, err, "calling tool "+name)
}

// Call calls a tool and decodes its structured content into Out. It fails
// the test on a protocol error, on an error result (showing its text) and
// on structured content that does not decode into Out.
func Call[Out any](t testing.TB, c *Client, name string, args any) (Out, *client.ToolResult) {
	t.Helper()
	var out Out
	res, err := c.c.CallTool(t.Context(), name, args)
	switch {
	case err != nil:
		t.Fatalf("ferrytest: calling tool %s: %v", name, err)
	case res.IsError:
		t.Fatalf("ferrytest: tool %s returned an error result: %s", name, res.Text())
	case len(res.StructuredContent) == 0:
		t.Fatalf("ferrytest: tool %s returned no structured content: %s", name, res.Raw)
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		t.Fatalf("ferrytest: tool %s: decoding its structured content into %T: %v", name, out, err)
	}
	return out, res
}

// ListTools returns every tool the client may see.
func (c *Client) ListTools(ctx context.Context) []client.Tool {
	c.t.Helper()
	tools, err := c.c.ListTools(ctx)
	return must(c, tools, err, "tools/list")
}

// ListPrompts returns every prompt the client may see.
func (c *Client) ListPrompts(ctx context.Context) []client.Prompt {
	c.t.Helper()
	prompts, err := c.c.ListPrompts(ctx)
	return must(c, prompts, err, "prompts/list")
}

// GetPrompt returns a prompt filled with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) *client.PromptResult {
	c.t.Helper()
	res, err := c.c.GetPrompt(ctx, name, args)
	return must(c, res, err, "getting prompt "+name)
}

// ListResources returns every resource the client may see.
func (c *Client) ListResources(ctx context.Context) []client.Resource {
	c.t.Helper()
	res, err := c.c.ListResources(ctx)
	return must(c, res, err, "resources/list")
}

// ListResourceTemplates returns every resource template the client may
// see.
func (c *Client) ListResourceTemplates(ctx context.Context) []client.ResourceTemplate {
	c.t.Helper()
	res, err := c.c.ListResourceTemplates(ctx)
	return must(c, res, err, "resources/templates/list")
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) *client.ReadResult {
	c.t.Helper()
	res, err := c.c.ReadResource(ctx, uri)
	return must(c, res, err, "reading "+uri)
}

// Complete returns the values suggested for the request's argument.
func (c *Client) Complete(ctx context.Context, req *client.CompleteRequest) []string {
	c.t.Helper()
	res, err := c.c.Complete(ctx, req)
	if err != nil {
		c.t.Fatalf("ferrytest: completing %s of %s: %v", req.Argument, req.Name+req.URI, err)
	}
	return res.Values
}

// must returns v, or fails the test saying what failed when err is not
// nil.
func must[T any](c *Client, v T, err error, what string) T {
	c.t.Helper()
	if err != nil {
		c.t.Fatalf("ferrytest: %s: %v", what, err)
	}
	return v
}
