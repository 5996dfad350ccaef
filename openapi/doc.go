// Package openapi turns the operations of an OpenAPI 3.0 or 3.1 document
// into route-bound tools (package route): in process, calling the
// service's own http.Handler, or as a gateway to a remote API.
//
//	doc, err := openapi.Load(ctx, "openapi.yaml")
//	if err != nil {
//		return err
//	}
//	// In process: the tools travel the service's middleware.
//	_, err = openapi.Bind(srv, handler, doc, &openapi.Options{
//		Select:      []string{"orders", "!deleteOrder"},
//		ClosedWorld: true,
//	}, nil)
//
//	// As a gateway: the tools call the API, with its own credentials.
//	up, err := openapi.NewUpstream("https://api.example.com", &openapi.UpstreamOptions{
//		Header: http.Header{"Authorization": {"Bearer " + os.Getenv("API_TOKEN")}},
//	})
//	_, err = openapi.Gateway(srv, up, doc, &openapi.Options{Select: []string{"issues"}})
//
// The server's start-up check (see [ferry.Server.Check]) then fails,
// naming the operation, for every selected operation that cannot be
// served, and for every route the handler does not serve.
//
// # Selection
//
// A model chooses worse among many tools than among the few that do the
// jobs that matter, so a document of more than [MaxUnselected] operations
// needs a selection ([Options.Select]: operation ids, tags, "METHOD
// /path" patterns, and "!" to leave some out); the error lists the tags
// and their counts to choose from. [Document.Select] tells what a
// selection chooses.
//
// # Tools
//
// Each selected operation becomes one tool:
//
//   - its name is the operation id in snake case (listPets is list_pets,
//     issues/create is issues_create), after [Options.NamePrefix], or its
//     method and path when it has no id; [ToolOptions.Name] replaces it;
//   - its description is the summary and the description, cut to 1024
//     characters; an operation with neither says which route it calls,
//     and a note says so;
//   - its input is one object: the path, query and header parameters
//     (path first) and the JSON request body. A body that is an object
//     with properties is merged, its properties keeping their names,
//     since they travel as written; any other body (an array, a map, a
//     oneOf) is the argument "body". A parameter whose name is taken is
//     renamed after where it goes (query_name, path_id, header_id), and a
//     name some clients reject (page[size], pet-id in a path) is written
//     in snake case (page_size, pet_id); each rename is a note, and the
//     argument still fills the parameter of its document name;
//   - its output schema is the first 2xx JSON answer's, when that is an
//     object ([Options.NoOutputSchemas] leaves them out);
//   - its hints follow the method, as for every route-bound tool: GET and
//     HEAD are read-only, PUT and DELETE idempotent, and a tool that
//     writes is destructive unless [ToolOptions.Additive] says otherwise;
//     [ToolOptions] adds hints, and [Options.ClosedWorld] marks a
//     service's own API.
//
// # Schemas
//
// Tool schemas are what every client accepts: every $ref is inlined
// (references within the document, to files beside it, and, for a
// document read from a URL, to URLs under its directory), allOf is merged
// into one schema (properties and required joined, types intersected, the
// stricter bounds kept), 3.0's nullable and boolean exclusive bounds are
// written as 3.1 writes them, const as a one-value enum, and a schema
// that holds itself is cut after [Options.MaxRecursion] levels, below
// which it is described only by its type. oneOf and anyOf are kept below
// the root, where clients accept them; a tool whose input holds them (or
// a list of types) is sent as written, and the service alone checks its
// arguments ([Tool.Checked] is false); every other tool's arguments are
// checked by the server before the service sees them, every violation
// listed with its path. readOnly properties are left out of inputs and
// writeOnly ones out of outputs.
//
// What a tool cannot serve is never dropped in silence. Keywords that only
// narrow what is valid (not, if/then/else, patternProperties, ...) are
// left out of the schema with a note, since the service still checks
// them; what cannot be sent at all makes the operation a start-up
// problem ([Tool.Err]): a required body that is not JSON
// (multipart/form-data), a required cookie, a path parameter that is not
// a whole segment (/files/{name}.json), a parameter serialized in a style
// other than the defaults, or an object in the query. [Document.Tools]
// lists the notes and problems without registering anything; ferry lint
// -openapi prints them.
//
// # Gateway
//
// [NewUpstream] and [Gateway] serve a remote API. The API's credentials
// come from configuration ([UpstreamOptions.Header]), never from the MCP
// client, whose token's audience is this server: it travels only in a
// header the operator names in [UpstreamOptions.PassHeaders], a choice
// documented there as the risk it is. Calls are bounded in time and
// size, redirects to another host are not followed, and the API's
// failures (unreachable, slow, 5xx) reach the model as refusals it can
// read: "unavailable: The API did not answer within 30s; try again
// later."
//
// # The parser
//
// Documents are read with github.com/pb33f/libopenapi, chosen over
// kin-openapi because it reads 3.0 and 3.1 alike and has for years (3.1's
// JSON Schema dialect: type lists, const, numeric exclusive bounds,
// $ref with siblings), resolves references across files and URLs through
// a file system this package bounds, builds schemas lazily (a 13 MB
// document's 1,200 operations are listed before any schema is built), and
// parsed GitHub's REST description (13 MB) in less than half the time
// and half the peak memory kin-openapi v0.153.0 took on the same machine
// (254 MB resident against 634 MB). It is MIT licensed and actively
// maintained.
package openapi
