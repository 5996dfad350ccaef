// Package workbench serves a page that people use to look at an MCP
// server: its tools (with their descriptions, hints, groups and required
// scopes), prompts, resources and templates, searchable; a form built
// from each tool's input schema, with the server's refusal sentences
// shown beside the fields they name; results shown as text, a JSON tree,
// images, or a table that pages; and a trace of the calls the server
// receives from every client, with their outcomes and timings.
//
// The page is a plain HTML file, a style sheet and a script embedded in
// the binary: it loads nothing from elsewhere and works offline. It
// speaks MCP (2026-07-28) to the server's own endpoint with fetch, as
// any client does, with the credential the user types into it, which it
// keeps in the tab; the server stores nothing of it and sets no cookie.
//
// Mount it beside the MCP endpoint, with the endpoint's handler (whose
// Host and Origin rules it follows) and, for the trace, the endpoint's
// authentication:
//
//	trace := workbench.NewTrace(nil)
//	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Observer: trace})
//	// ... add tools ...
//	mcp := ferry.NewHTTPHandler(srv, nil)
//	authn := auth.Middleware(&auth.Options{Authenticators: authenticators})
//	mux := http.NewServeMux()
//	mux.Handle("/mcp", authn(mcp))
//	workbench.New(mcp, &workbench.Options{Title: "orders", Trace: trace, Server: srv, Auth: authn}).Mount(mux, "/ui")
//
// With [Options.Server] set, the page's catalog also shows each tool's
// groups, scopes and roles (which tools/list does not carry) from
// catalog.json, behind Auth, naming only the tools the caller may call.
//
// ferry demo serves it at /ui/, and ferry serve with -ui.
//
// # Security
//
// Every response carries [ContentSecurityPolicy] (no inline script or
// style, nothing from another origin, no framing), nosniff, no-referrer
// and no-store. A request whose Host or Origin the MCP endpoint refuses
// is refused the same way ([ferry.HTTPHandler.Refused]), which defeats DNS
// rebinding and other sites' pages. The page renders every text the
// server sends (descriptions, results, refusals) as text, never as HTML.
// The page itself needs no credential; everything it does with the
// server goes through the MCP endpoint and its authentication.
//
// # The trace
//
// A [Trace] is a [ferry.Observer] that keeps the last calls of every
// client (tools/call, prompts/get, resources/read) in a ring of fixed
// size: name, caller, client, outcome, refusal code and sentence or error
// message, duration; never arguments or results. Set it as the server's
// observer ([Join] combines it with another, such as otelferry's) and
// pass it to [Options.Trace]. Its endpoint, GET trace?after=SEQ, answers
// at once with the events after SEQ, behind [Options.Auth], to the
// callers [Options.MayReadTrace] allows: by default every authenticated
// caller and no anonymous one. What a trace shows of other clients'
// calls (who called what, and the refusals they got) is for the people
// who run the server: give it to no caller that should not see it.
package workbench
