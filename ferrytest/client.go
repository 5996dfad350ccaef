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
	// Elicit, Sample and Roots answer the server's questions, as in
	// [client.Options].
	Elicit func(ctx context.Context, req *client.ElicitRequest) (*client.ElicitResult, error)
	Sample func(ctx context.Context, req *client.SampleRequest) (*client.SampleResult, error)
	Roots  func(ctx context.Context) ([]client.Root, error)
	// HTTP configures the in-memory handler. If nil, a stateful one
	// (legacy sessions keep their questions open).
	HTTP *ferry.HTTPOptions
}

// Client is a [client.Client] connected in memory to a [ferry.Server]:
// requests go through [ferry.NewHTTPHandler] with no socket. Its methods
// fail the test on a transport or protocol error; [Client.Raw] returns the
// underlying client for tests that expect one. It is safe for concurrent
// use, as the test's t is.
type Client struct {
	t testing.TB
	c *client.Client
}

// NewClient connects to srv in memory and closes the connection when the
// test ends. opts may be nil. It fails the test if the server does not
// answer the handshake (or fails its start-up check).
func NewClient(t testing.TB, srv *ferry.Server, opts *Options) *Client {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Protocol == "" {
		o.Protocol = client.Version20260728
	}
	hopts := o.HTTP
	if hopts == nil {
		hopts = &ferry.HTTPOptions{Stateful: true}
	}
	if err := srv.Check(); err != nil {
		t.Fatalf("ferrytest: the server fails its start-up check:\n%v", err)
	}
	var h http.Handler = ferry.NewHTTPHandler(srv, hopts)
	if o.Principal != nil {
		h = withPrincipal(h, o.Principal)
	}
	c, err := client.DialHandler(context.WithoutCancel(t.Context()), h, &client.Options{
		Protocol: o.Protocol, Elicit: o.Elicit, Sample: o.Sample, Roots: o.Roots,
		Name: "ferrytest", Version: "1",
	})
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
	if err != nil {
		c.t.Fatalf("ferrytest: calling tool %s: %v", name, err)
	}
	return res
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
	if err != nil {
		c.t.Fatalf("ferrytest: tools/list: %v", err)
	}
	return tools
}

// ListPrompts returns every prompt the client may see.
func (c *Client) ListPrompts(ctx context.Context) []client.Prompt {
	c.t.Helper()
	prompts, err := c.c.ListPrompts(ctx)
	if err != nil {
		c.t.Fatalf("ferrytest: prompts/list: %v", err)
	}
	return prompts
}

// GetPrompt returns a prompt filled with args.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) *client.PromptResult {
	c.t.Helper()
	res, err := c.c.GetPrompt(ctx, name, args)
	if err != nil {
		c.t.Fatalf("ferrytest: getting prompt %s: %v", name, err)
	}
	return res
}

// ListResources returns every resource the client may see.
func (c *Client) ListResources(ctx context.Context) []client.Resource {
	c.t.Helper()
	res, err := c.c.ListResources(ctx)
	if err != nil {
		c.t.Fatalf("ferrytest: resources/list: %v", err)
	}
	return res
}

// ListResourceTemplates returns every resource template the client may
// see.
func (c *Client) ListResourceTemplates(ctx context.Context) []client.ResourceTemplate {
	c.t.Helper()
	res, err := c.c.ListResourceTemplates(ctx)
	if err != nil {
		c.t.Fatalf("ferrytest: resources/templates/list: %v", err)
	}
	return res
}

// ReadResource reads the resource at uri.
func (c *Client) ReadResource(ctx context.Context, uri string) *client.ReadResult {
	c.t.Helper()
	res, err := c.c.ReadResource(ctx, uri)
	if err != nil {
		c.t.Fatalf("ferrytest: reading %s: %v", uri, err)
	}
	return res
}

// Complete returns the completions of argument argName of ref for value.
func (c *Client) Complete(ctx context.Context, ref client.Ref, argName, value string) []string {
	c.t.Helper()
	res, err := c.c.Complete(ctx, ref, argName, value)
	if err != nil {
		c.t.Fatalf("ferrytest: completing %s of %s: %v", argName, ref.Name+ref.URI, err)
	}
	return res.Values
}
