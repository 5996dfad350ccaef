// Package client is a small MCP client for both protocol eras: the
// stateless 2026-07-28 ("modern") and the session-based 2025 versions
// ("legacy"). It connects over Streamable HTTP ([DialHTTP]), to a command
// speaking stdio ([DialCommand]), or in process to an [net/http.Handler]
// ([DialHandler]), and lists and calls what a server offers:
//
//	c, err := client.DialHTTP(ctx, "http://127.0.0.1:8080/mcp", &client.Options{
//		Header: http.Header{"Authorization": {"Bearer " + token}},
//	})
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	res, err := c.CallTool(ctx, "search_orders", map[string]any{"query": "ada"})
//
// # Eras
//
// By default a client sends server/discover and speaks the modern era when
// the server answers it; when the server does not (method not found, an
// HTTP 400 or 404, no modern version), it opens a legacy session with
// initialize, asking for the newest legacy version the server offers.
// [Options.Protocol] forces a version instead. [Client.Protocol] says
// which one was negotiated.
//
// # Results and errors
//
// Every item (a [Tool], a [Prompt], a [ToolResult]...) keeps the JSON the
// server sent in its Raw field, for callers that print or check it as it
// is. List methods read every page, up to [Limits.MaxPages]; each message
// is bounded by [Limits.MaxResponseBytes]. A request whose server goes
// quiet for [Limits.IdleTimeout], or sends more than
// [Limits.MaxStreamMessages] messages without answering it, is given up
// with an error saying so, as is a message that is not valid UTF-8; the
// context bounds the rest. A JSON-RPC error answer is an [*Error], with
// the server package's codes (ferry.CodeMethodNotFound...); an HTTP
// answer that is not JSON-RPC is a [*StatusError]; anything else (a
// refused connection, garbage on the wire) is an ordinary wrapped error.
// A tool that fails is not an error: its result has IsError set.
//
// # Questions from the server
//
// [Options.Elicit], [Options.CreateMessage] and [Options.ListRoots]
// answer the server's elicitation, sampling and roots questions (the
// server's ferry.Elicit, ferry.CreateMessage and ferry.ListRoots), and
// declare the matching client capabilities. In the legacy era the questions arrive as
// requests on the answer's stream (HTTP) or on stdio; in the modern era
// the server answers a call with an input_required result and the client
// retries it with the answers, up to [Limits.MaxInputRounds] times.
//
// # Cancellation
//
// Cancelling a call's context ends it: the call returns at once. The
// client also sends notifications/cancelled for it, in the background and
// for at most [Limits.CloseTimeout], except over HTTP in the modern era,
// where closing the answer's stream is the cancellation. [Client.Close]
// waits on the server at most that long as well.
//
// # Concurrency
//
// A [Client]'s methods may be called from several goroutines at once.
package client
