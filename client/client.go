package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Protocol versions the client speaks, newest first.
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
)

// legacyVersions are the versions negotiated with initialize, newest first.
var legacyVersions = []string{Version20251125, Version20250618, Version20250326}

// Options configures a [Client]. The zero value connects in the modern era
// when the server speaks it and in the legacy one otherwise, and answers no
// server questions.
type Options struct {
	// Protocol chooses the protocol version. If empty, the client sends
	// server/discover (2026-07-28) and falls back to initialize with the
	// newest legacy version the server offers when the server does not
	// answer it. A version (one of the Version constants) forces it.
	Protocol string
	// Header is added to every HTTP request (credentials, for instance).
	Header http.Header
	// HTTPClient sends the HTTP requests of [DialHTTP]. If nil, a client of
	// its own, with no timeout (contexts bound each request), is used.
	HTTPClient *http.Client
	// Name and Version are the clientInfo the client sends. If empty,
	// "ferry-client" and "0".
	Name, Version string
	// Elicit answers the server's elicitation/create questions. If nil,
	// the client does not declare the elicitation capability.
	Elicit func(ctx context.Context, p *ElicitParams) (*ElicitResult, error)
	// CreateMessage answers the server's sampling/createMessage requests.
	// If nil, the client does not declare the sampling capability.
	CreateMessage func(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error)
	// ListRoots answers roots/list. If nil, the client declares no roots.
	ListRoots func(ctx context.Context) ([]Root, error)
	// Notify receives the server's notifications (progress, logs, list
	// changes) that arrive while a request is answered. It must not block
	// for long. If nil, notifications are dropped.
	Notify func(method string, params json.RawMessage)
	// Limits bound what a server can make the client read and wait for.
	// The zero value holds the defaults (see [Limits]).
	Limits Limits
}

// transport carries a client's messages. Implementations are safe for
// concurrent use.
type transport interface {
	// call sends a request and returns its response. Server requests and
	// notifications that arrive while it waits are handed to the client.
	call(ctx context.Context, r *outgoing) (*message, error)
	// notify sends a notification.
	notify(ctx context.Context, method string, params json.RawMessage) error
	// setProtocol tells the transport the negotiated version.
	setProtocol(version string)
	// cancelByNotice reports whether a request given up is cancelled with
	// notifications/cancelled, in the given era (rather than by closing
	// its stream, as modern HTTP does).
	cancelByNotice(modern bool) bool
	// close ends the connection, waiting on the server no longer than
	// timeout.
	close(timeout time.Duration) error
}

// outgoing is one request to send.
type outgoing struct {
	id     int64
	method string
	params json.RawMessage
	name   string      // what Mcp-Name carries, for tools/call, prompts/get and resources/read
	header http.Header // Mcp-Param-* headers of a modern tools/call
	watch  *watch      // bounds the wait for the answer; its ctx is the call's
}

// Client is a connection to one MCP server, in the era negotiated when it
// was dialed. Its methods are safe for concurrent use.
type Client struct {
	t        transport
	opts     Options
	nextID   atomic.Int64
	protocol string
	modern   bool
	info     ServerInfo
	closed   sync.Once
	closeErr error
	meta     atomic.Pointer[metaMembers] // the _meta of modern requests, encoded once

	mu      sync.Mutex               // guards headers
	headers map[string][]paramHeader // a modern tool's x-mcp-header arguments, learnt from tools/list

	// The notifications/cancelled sent in the background. Close sets
	// closing, so that no notice starts after it waits for notices, and
	// ends noticeCtx once CloseTimeout has passed.
	noticeMu   sync.Mutex // guards closing and the Go calls on notices
	closing    bool
	notices    sync.WaitGroup
	noticeCtx  context.Context //nolint:containedctx // the notices' lifetime, ended by Close
	endNotices context.CancelFunc
}

func newClient(opts *Options) *Client {
	c := &Client{}
	if opts != nil {
		c.opts = *opts
	}
	c.opts.Header = c.opts.Header.Clone()
	c.opts.Limits.fill()
	c.noticeCtx, c.endNotices = context.WithCancel(context.Background())
	if c.opts.Name == "" {
		c.opts.Name, c.opts.Version = "ferry-client", "0"
	} else if c.opts.Version == "" {
		c.opts.Version = "0"
	}
	return c
}

// start negotiates the era; on failure the transport is closed.
func (c *Client) start(ctx context.Context, t transport) (*Client, error) {
	c.t = t
	if err := c.negotiate(ctx); err != nil {
		c.endNotices()
		_ = t.close(c.opts.Limits.CloseTimeout)
		return nil, err
	}
	return c, nil
}

// Protocol returns the negotiated protocol version.
func (c *Client) Protocol() string { return c.protocol }

// Modern reports whether the client speaks the stateless era (2026-07-28
// and later).
func (c *Client) Modern() bool { return c.modern }

// ServerInfo returns what the server said of itself when the client
// connected.
func (c *Client) ServerInfo() *ServerInfo { return &c.info }

// Close ends the connection: a legacy HTTP session is deleted, a command
// is stopped. It waits on the server at most [Limits.CloseTimeout], for
// the notices of calls given up and then for the end of the session, and
// kills a command still running then. It is safe to call more than once.
func (c *Client) Close() error {
	c.closed.Do(func() {
		start := time.Now()
		c.noticeMu.Lock()
		c.closing = true
		c.noticeMu.Unlock()
		stop := time.AfterFunc(c.opts.Limits.CloseTimeout, c.endNotices)
		c.notices.Wait()
		stop.Stop()
		c.endNotices()
		c.closeErr = c.t.close(max(0, c.opts.Limits.CloseTimeout-time.Since(start)))
	})
	return c.closeErr
}

// Call sends a request and decodes its result into result (unless it is
// nil). params is marshalled to a JSON object (nil means {}). In the
// modern era the client adds the _meta members every request carries, and
// answers an input_required result by asking Options.Elicit,
// CreateMessage or ListRoots and retrying. A JSON-RPC error is returned
// as an [*Error].
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.call(ctx, method, params)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("client: decoding the %s result: %w", method, err)
	}
	return nil
}

// call sends a request, answering input_required rounds, and returns the
// raw result.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p, err := paramsObject(params)
	if err != nil {
		return nil, fmt.Errorf("client: %s params: %w", method, err)
	}
	for round := 0; ; round++ {
		res, err := c.roundTrip(ctx, method, p)
		if err != nil || !c.modern {
			return res, err
		}
		asks, err := asksForInput(res)
		if err != nil {
			return nil, fmt.Errorf("client: the %s result is not an object: %w", method, err)
		}
		if !asks {
			return res, nil
		}
		var ir inputRequired
		if err := json.Unmarshal(res, &ir); err != nil {
			return nil, fmt.Errorf("client: the %s input_required result: %w", method, err)
		}
		if round+1 >= c.opts.Limits.MaxInputRounds {
			return nil, fmt.Errorf("client: %s still asks for input after %d rounds", method, round+1)
		}
		if p, err = c.answerInputs(ctx, method, p, &ir); err != nil {
			return nil, err
		}
	}
}

// roundTrip sends one request and returns its raw result.
func (c *Client) roundTrip(ctx context.Context, method string, p map[string]json.RawMessage) (json.RawMessage, error) {
	r := &outgoing{id: c.nextID.Add(1), method: method}
	if c.modern {
		p = c.withMeta(p)
		r.name = routingName(method, p)
		if method == "tools/call" {
			r.header = c.paramHeaderValues(r.name, p["arguments"])
		}
	}
	r.params = encodeObject(p)
	r.watch = c.newWatch(ctx, method)
	defer r.watch.stop()
	m, err := c.t.call(r.watch.ctx, r)
	if err != nil {
		gaveUp := r.watch.gaveUp()
		if r.watch.ctx.Err() != nil && method != "initialize" && c.t.cancelByNotice(c.modern) {
			c.cancelled(r.id, context.Cause(r.watch.ctx))
		}
		if gaveUp != nil {
			return nil, gaveUp
		}
		return nil, err
	}
	if m.err != nil {
		return nil, m.err
	}
	return m.Result, nil
}

// cancelled tells the server that the client gave up request id, in the
// background: the call has ended with its context, and a server slow to
// take the notice must not hold it. The notice waits at most
// CloseTimeout, and no longer than Close allows.
func (c *Client) cancelled(id int64, cause error) {
	p, _ := json.Marshal(map[string]any{"requestId": id, "reason": cause.Error()})
	c.noticeMu.Lock()
	defer c.noticeMu.Unlock()
	if c.closing {
		return // the session is ending, which cancels the request too
	}
	c.notices.Go(func() {
		ctx, cancel := context.WithTimeout(c.noticeCtx, c.opts.Limits.CloseTimeout)
		defer cancel()
		_ = c.t.notify(ctx, "notifications/cancelled", p)
	})
}

// rawParams are params the client built itself, each value compact JSON
// from json.Marshal, which need not be marshalled again.
type rawParams map[string]json.RawMessage

// paramsObject marshals params to the members of a JSON object.
func paramsObject(params any) (map[string]json.RawMessage, error) {
	p := map[string]json.RawMessage{}
	switch params := params.(type) {
	case nil:
		return p, nil
	case rawParams:
		for k, v := range params {
			p[k] = v
		}
		return p, nil
	}
	data, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(data, []byte("null")) {
		return p, nil
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, errors.New("params must marshal to a JSON object")
	}
	return p, nil
}

// routingName is what Mcp-Name carries for a request: the tool or prompt
// name, or the resource URI.
func routingName(method string, p map[string]json.RawMessage) string {
	key := ""
	switch method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	case "tasks/get", "tasks/update", "tasks/cancel":
		key = "taskId"
	default:
		return ""
	}
	var s string
	_ = json.Unmarshal(p[key], &s)
	return s
}

// capabilities is what the client declares, from the functions it has.
func (c *Client) capabilities() map[string]any {
	caps := map[string]any{}
	if c.opts.Elicit != nil {
		caps["elicitation"] = map[string]any{"form": struct{}{}, "url": struct{}{}}
	}
	if c.opts.CreateMessage != nil {
		caps["sampling"] = struct{}{}
	}
	if c.opts.ListRoots != nil {
		caps["roots"] = struct{}{}
	}
	return caps
}

// clientInfo is the client's Implementation object.
func (c *Client) clientInfo() map[string]string {
	return map[string]string{"name": c.opts.Name, "version": c.opts.Version}
}

// withMeta returns p with the _meta members a modern request carries,
// keeping those the caller set.
func (c *Client) withMeta(p map[string]json.RawMessage) map[string]json.RawMessage {
	base := c.baseMeta()
	out := make(map[string]json.RawMessage, len(p)+1)
	for k, v := range p {
		out[k] = v
	}
	raw, ok := p["_meta"]
	if !ok {
		out["_meta"] = base.whole
		return out
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(raw, &meta)
	for k, v := range base.members {
		if _, ok := meta[k]; !ok {
			meta[k] = v
		}
	}
	out["_meta"] = encodeObject(meta)
	return out
}

// metaMembers are the _meta members of every modern request, encoded once
// per negotiated version: they do not change for the client's life.
type metaMembers struct {
	protocol string
	members  map[string]json.RawMessage
	whole    json.RawMessage // members as one object
}

// baseMeta returns the _meta members for the negotiated version.
func (c *Client) baseMeta() *metaMembers {
	if m := c.meta.Load(); m != nil && m.protocol == c.protocol {
		return m
	}
	m := &metaMembers{protocol: c.protocol, members: map[string]json.RawMessage{}}
	set := func(k string, v any) { m.members[k], _ = json.Marshal(v) }
	set("io.modelcontextprotocol/protocolVersion", c.protocol)
	set("io.modelcontextprotocol/clientCapabilities", c.capabilities())
	set("io.modelcontextprotocol/clientInfo", c.clientInfo())
	m.whole = encodeObject(m.members)
	c.meta.Store(m)
	return m
}
