// Package protomcp serves the unary methods of protobuf (Connect and gRPC)
// services as MCP tools, and prompts declared in the .proto files as MCP
// prompts, on a [ferry.Server].
//
// Everything comes from the service definition: names, descriptions from
// the comments, input and output JSON Schemas in the protojson mapping,
// buf.validate rules as schema keywords and checked at call time, hints
// from idempotency_level and the (ferry.v1.tool) option. A call goes
// through the service's own Connect handler by default, so its
// interceptors and HTTP middleware run as for any other client.
//
// The generator protoc-gen-ferry writes a [ServiceSpec] per service; for
// descriptors known only at run time, [Describe] computes the same spec.
// [AddService] registers a spec on a server.
package protomcp
