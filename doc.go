// Package ferry puts a Go service in front of AI agents as a Model Context
// Protocol (MCP) server: tools, prompts and resources, served over
// Streamable HTTP and stdio, to clients of both protocol eras.
//
// A server is a registry; transports serve it:
//
//	srv := ferry.NewServer("orders", "1.0.0", nil)
//	srv.AddTool(ferry.Tool{
//		Name:        "echo",
//		Description: "Returns its text.",
//		InputSchema: schema.Object(schema.Required("text", schema.Text("The text."))),
//	}, func(ctx context.Context, req *ferry.CallToolRequest) (*ferry.ToolResult, error) {
//		var in struct{ Text string } // checked against InputSchema already
//		if err := json.Unmarshal(req.Arguments, &in); err != nil {
//			return nil, err
//		}
//		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text(in.Text)}}, nil
//	})
//	http.Handle("/mcp", ferry.NewHTTPHandler(srv, nil))
//
// # Protocol eras
//
// MCP 2026-07-28 (the modern era) is stateless: every request names its
// protocol version and the client's capabilities in _meta, and there is no
// initialize. The 2025 versions (legacy: 2025-11-25, 2025-06-18 and
// 2025-03-26) open a session with initialize. One [Server] serves both, on
// the same endpoint or connection: the first message of a request decides.
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
// # Errors
//
// A tool's failure is a [ToolResult] with IsError set: the model reads it and
// may correct its call. A protocol failure is an [*Error] with a JSON-RPC
// code; [CodeOf] tells the code of any error. An unexpected error or panic
// in a tool handler reaches the model as a masked sentence with a reference
// to the log record that holds the details.
//
// # Security
//
// The HTTP handler refuses requests whose Host or Origin is not loopback or
// on an allow-list (DNS rebinding), and limits the request body. Users own
// the [net/http.Server], TLS, routing and authentication.
package ferry
