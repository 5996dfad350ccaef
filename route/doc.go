// Package route binds tools to the routes of a service's own http.Handler,
// so that an agent's tool call travels the pipeline every other caller's
// request does: the service's authentication, validation, transactions,
// rate limits and audit middleware see it as they see a browser's.
//
//	type CancelIn struct {
//		ID     string `json:"id" doc:"The order to cancel."`
//		Reason string `json:"reason,omitzero" doc:"Why." enum:"duplicate,fraud,other"`
//		Key    string `json:"idempotency_key,omitzero" in:"header=Idempotency-Key"`
//	}
//
//	api := route.New(srv, handler, &route.Options{Prefix: "/api"})
//	route.AddTool[CancelIn](api, ferry.Tool{Name: "cancel_order",
//		Description: "Cancels an order that has not shipped."}, "POST /orders/{id}/cancel")
//
// What travels with the call is listed at [New]; nothing else of the MCP
// request does. A tool's arguments can fill a header only through an
// in:"header=Name" field, never Authorization, Cookie, the binding's own
// headers or those [Options.Forward] and [Options.Header] name, and never
// with control characters.
//
// The call is served in process: the handler's ServeHTTP runs with a
// request built from the arguments, whose context is the call's (its
// deadline and cancellation reach the handler, and
// [ferry.PrincipalFromContext] reads the caller), and a response writer
// that keeps the answer in memory. No socket is opened.
//
// Because the handler runs on the call's goroutine, a handler that
// ignores its context holds the call until it returns, as it would hold a
// connection under net/http. Bound such a handler with
// [net/http.TimeoutHandler]; its 503 reads "unavailable: ..." to the model.
// A handler that keeps its ResponseWriter and writes after it returned
// writes into nothing: the write fails, and no other call's answer sees it.
//
// # Arguments
//
// One rule places every argument:
//
//   - A path wildcard, {id} or {rest...}, is filled by the argument of the
//     same JSON name, escaped as [net/url.PathEscape] does; a {rest...}
//     keeps its slashes, but no segment of it may be empty, "." or "..".
//     An {id} may hold a slash (it travels as %2F), but not "." or ".."
//     between slashes: r.URL.Path is decoded, and a middleware that
//     cleans it must not climb out of the route.
//     A wildcard no property of the input schema fills is a start-up
//     problem; a call without the argument, or with an empty one, is
//     refused as invalid before anything is served.
//   - For GET, HEAD and DELETE, the other arguments are the query string:
//     an array repeats its name, null is left out, a number is written as
//     the JSON wrote it and a string as its text. A property whose schema
//     is an object, or an array of objects or arrays, is a start-up problem.
//   - For POST, PUT and PATCH, the other arguments are the body, a JSON
//     object sent as application/json ({} when there are none).
//   - A field of a typed tool's input tagged in:"query" goes to the query
//     string (in:"query=name" as the parameter name, when it is not the
//     argument's), and one tagged in:"header=Name" to that header, whatever
//     the method. in:"path" says a field fills a wildcard (which it does
//     anyway), so that a route without it is a start-up problem.
//   - A field tagged in:"body" is the whole JSON body, whatever its type
//     (an array, a string): the request has no body when it is absent or
//     null, and the arguments no field places go to the query string. A
//     GET or HEAD route, or a second such field, is a start-up problem.
//   - [Binding.AddPlaced] places the arguments of a tool whose schema is
//     built at run time, by the same words, from a map.
//
// # Answers
//
// A 2xx answer with a JSON object body (application/json or a +json
// type) is the result's structured content, and the same JSON its text;
// an image/* or audio/* body is an image or audio block; any other 2xx body
// is text, and no body at all reads [DoneText] (a HEAD answer's body is
// dropped, as net/http drops it). A body longer than
// [Options.MaxResponseBytes] is cut there, and the text says so (and it is
// not structured content; a cut image or sound is an error result saying
// it is too large): the handler's writes beyond the limit fail with
// [ErrResponseTooLarge], so a route is never read without bound.
//
// Any 4xx, and 429 and 503, is a refusal the model reads,
// "not-found: No such order.": its code comes from the status (400 and 422
// invalid, 401 and 403 forbidden, 404 and 410 not-found, 409 and 412
// conflict, 429 and 503 unavailable, any other 4xx invalid); its sentence
// is the problem document's detail, else its title (RFC 9457,
// application/problem+json; a JSON body's message or error member is read
// too), else the first line of a text/plain body, else the status text.
// Retry-After, in seconds or as a date, adds "Retry in 30s.". A problem's
// errors member (see [Problem.Errors]) is listed a field per line, as
// invalid arguments are, at the argument the model sent: a location in
// the request the binding built from the arguments is written as that
// argument's path, so "body.items[2].sku" (or the pointer
// "/body/items/2/sku") reads "- items[2].sku: must be at most 20
// characters" ("- lines[2].sku" when an argument lines is the whole
// body), and "path.id", "query.limit" and "header.Idempotency-Key" read
// as the arguments that filled them. A location that names no
// argument of the tool's input schema is quoted as the service wrote it.
//
// A redirect (3xx), any other 5xx and a handler that panics are unexpected
// failures: the server masks them for the model behind a reference, and
// logs the error, which holds the request's X-Request-Id, the status and
// the start of the body.
//
// # Hints
//
// The hints follow the method: GET and HEAD tools are read-only; PUT and
// DELETE tools are idempotent. The other hints are the tool's own, whose
// zero values are the protocol's cautious defaults: a tool that writes is
// reported destructive unless it sets [ferry.Tool.Additive], and POST and
// PATCH tools not idempotent unless it sets [ferry.Tool.Idempotent].
// The server's [ferry.Catalog] holds these hints, so an authorizer that
// reads [ferry.ParseToolCalls] learns whether a route-bound tool writes as
// it does for any other. So a server that confirms destructive calls
// ([ferry.ServerOptions.Confirm]) asks a person before a DELETE, PUT,
// PATCH or POST tool runs, unless the tool is Additive or says otherwise
// ([ferry.Tool.Confirm]); the person reads the tool, its arguments and,
// unless the tool has its own [ferry.Tool.Summarize], "Sends DELETE
// /notes/{id} to the service."
//
// # Job tools
//
// A job asks several questions of the same pipeline: [AddJob] registers a
// typed tool whose handler calls [Ask] ("POST /ledger/accruals", a body),
// gets an [Answer] (status, headers, body, decoded problem), and returns
// [Answer.Err] to stop at the first refusal. Each question carries the same
// headers as a route-bound tool's request.
//
// # Start-up check
//
// [New] adds [Binding.Check] to the server's start-up checks: every route
// must be served by the handler, with exactly its pattern when the handler
// (or [Options.Router], through [ServeMux]) is an [*http.ServeMux]; other
// routers answer through a [Matcher]. A tool bound to a missing route fails
// start-up, naming the tool and the route; a route that cannot be checked
// is logged as a warning.
package route
