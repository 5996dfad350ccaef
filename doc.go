// Package ferry puts a Go service in front of AI agents as a Model Context
// Protocol (MCP) server: tools, prompts and resources, served over
// Streamable HTTP and stdio, to clients of both protocol eras.
//
// A server is a registry; transports serve it. A typed tool's input schema
// and validation come from its input struct's tags:
//
//	type SearchIn struct {
//		Query string `json:"query" doc:"Text to search for." minLength:"1"`
//	}
//
//	srv := ferry.NewServer("orders", "1.0.0", nil)
//	ferry.AddTool(srv, ferry.Tool{Name: "search_orders", Description: "Searches orders by text.", ReadOnly: true},
//		func(ctx context.Context, in SearchIn) ([]Order, error) {
//			return findOrders(ctx, in.Query)
//		})
//	mux := http.NewServeMux()
//	mux.Handle("/mcp", ferry.NewHTTPHandler(srv, nil))
//	hs := ferry.NewHTTPServer("127.0.0.1:8080", mux)
//	err := hs.ListenAndServe()
//
// [Server.AddTool] is the raw form, for schemas built at run time.
//
// # Protocol eras
//
// MCP 2026-07-28 (the modern era) is stateless: every request names its
// protocol version and the client's capabilities in _meta, and there is no
// initialize. The 2025 versions (legacy: 2025-11-25, 2025-06-18 and
// 2025-03-26) open a session with initialize. One [Server] serves both, on
// the same endpoint or connection: the first message of a request decides.
//
// A modern tools/call over HTTP carries its version and the client's
// capabilities (an object, empty if the client answers no questions) in
// _meta, and repeats the version, the method and the tool's name in
// headers, which must agree with the body (-32020 otherwise); Mcp-Name is
// the prompt's name for prompts/get and the URI for resources/read:
//
//	curl -s http://127.0.0.1:8080/mcp \
//	  -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
//	  -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: search_orders' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_orders",
//	       "arguments":{"query":"ada"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
//	       "io.modelcontextprotocol/clientCapabilities":{}}}}'
//
// A legacy client sends initialize first, then the Mcp-Session-Id it got
// and the MCP-Protocol-Version header with each request:
//
//	curl -si http://127.0.0.1:8080/mcp -H 'Content-Type: application/json' \
//	  -H 'Accept: application/json, text/event-stream' \
//	  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}'
//
// A tool whose argument is marked "x-mcp-header" in its schema also gets
// that argument in an Mcp-Param-<Name> header. A modern
// subscriptions/listen names what it wants in params.notifications
// ({"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}).
//
// Modern list results say how long a client may keep them: ttlMs 60000,
// with cacheScope "public", or "private" when [ServerOptions.Visible] makes
// them depend on the caller. A client also hears of changes through a
// listen stream, so a tool added at run time reaches listening clients at
// once and the others within a minute.
//
// # Sessions
//
// Over HTTP, legacy sessions are stateless by default: the Mcp-Session-Id is
// a token signed with [ServerOptions.SigningKeys] that carries the
// negotiated version, so any replica can serve any request and nothing is
// kept per client. [HTTPOptions.Stateful] keeps sessions in a
// [SessionStore] instead, which server-to-client requests on legacy
// sessions need ([Elicit], [CreateMessage], [ListRoots]), as do
// logging/setLevel and subscriptions. In the modern era such questions are
// answered by the client retrying the request (an input_required result),
// and the request state travels signed, so they work statelessly.
//
// A session opened by an authenticated caller (a [Principal] set on the
// request's context, see [WithPrincipal]) serves that caller only, whether
// stateless or stateful: to anyone else its id answers as an unknown one.
//
// # Errors
//
// A tool's failure is a [ToolResult] with IsError set: the model reads it and
// may correct its call. A protocol failure is an [*Error] with a JSON-RPC
// code; [CodeOf] tells the code of any error. An unexpected error or panic
// in a tool handler reaches the model as a masked sentence with a reference
// to the log record that holds the details.
//
// # Concurrency
//
// Handlers (of tools, prompts, resources and completions) and middleware
// run concurrently, on every transport: HTTP requests are served in
// parallel, and so are the requests of one stdio connection. Guard the
// state they share. A [Server] is safe for concurrent use, registration
// while serving included.
//
// # Security
//
// The HTTP handler refuses requests whose Host is not loopback or on an
// allow-list (DNS rebinding), or whose Origin is neither the request's
// own nor on an allow-list (pages of other sites, and of other apps on
// this machine); see [HTTPOptions.AllowedHosts] and
// [HTTPOptions.AllowedOrigins]. It limits the request body. Users own the
// [net/http.Server], TLS, routing and authentication: [NewHTTPServer]
// returns an http.Server with the timeouts untrusted clients need. Serve
// loopback only unless authentication is in front of the handler.
//
// An authenticator sets the caller ([WithPrincipal]); the server enforces
// the [Tool.Scopes] and [Tool.Roles] of every tool, prompt, resource and
// template against it: a caller who lacks them does not see the entry,
// and using it reads as using one that does not exist
// ([ServerOptions.StepUp] asks for missing scopes instead, with HTTP 403).
// [ServerOptions.ReadOnly] hides and refuses every tool that writes;
// [ServerOptions.Confirm] has a person confirm each destructive call
// before it runs, through the client, in either era.
// Every call has a deadline ([Limits.CallTimeout], or the tool's own
// [Tool.Timeout]) and a result budget ([Limits.MaxResultBytes]: a larger
// result is cut, a list at a whole item), each caller a
// number of calls in flight and a rate ([Limits.MaxCallsPerCaller],
// [Limits.CallRate]), and every message a nesting depth
// ([Limits.MaxJSONDepth]); each has a default. A message is read
// once and exactly: a member of the envelope or of the params Ferry reads
// sent twice, or as a case variant of one ("Method", "NAME"), which
// another JSON reader in front of the server could take for it, is
// refused, and [ParseToolCalls] reads a body as the server does.
package ferry
