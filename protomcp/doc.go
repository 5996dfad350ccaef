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
//
// # Generating code
//
// Run protoc-gen-ferry beside protoc-gen-go and protoc-gen-connect-go, with
// protomcp/proto on the include path for ferry/v1/options.proto:
//
//	protoc -I proto -I $FERRY/protomcp/proto \
//	  --go_out=gen --connect-go_out=gen --ferry_out=gen weather/v1/weather.proto
//
// For weather.v1.WeatherService it writes package weatherv1ferry with
// WeatherServiceSpec, AddWeatherServiceTools and WeatherServiceDirect:
//
//	path, h := weatherv1connect.NewWeatherServiceHandler(svc, connect.WithInterceptors(auth))
//	mux.Handle(path, h)
//	err := weatherv1ferry.AddWeatherServiceTools(srv, protomcp.Handler(mux), nil)
//
// examples/weather in the repository is a complete program.
//
// # Names, hints and prompts
//
// A tool is named after its method in snake_case (GetHTTPStatus is
// get_http_status), after an optional prefix. idempotency_level
// NO_SIDE_EFFECTS makes it read-only, IDEMPOTENT idempotent; any method that
// is not read-only is marked destructive unless its option says otherwise.
// The (ferry.v1.tool) method option sets the name, title, destructive and
// open-world hints or skips the method; (ferry.v1.prompts) on a service and
// (ferry.v1.method_prompts) on a method declare prompts whose arguments are
// the fields of a message. See [Describe] for every rule, and
// proto/ferry/v1/options.proto.
//
// # Calls
//
// A tool call's arguments are decoded with protojson strictly and checked
// with protovalidate before anything is called; every problem reaches the
// model at once, with its path, in the sentences of the root's schema
// errors ("lines[1].sku: must be at least 3 characters, got 1"). The
// request then goes to a [Dispatcher]:
//
//   - [Handler] calls the service's Connect handler (or the mux and
//     middleware around it) in process, with the caller's credentials, the
//     trace context, the tool's name and the session travelling as
//     headers, so its interceptors see, and can refuse, the call;
//   - [Client] forwards to a remote Connect, gRPC or gRPC-Web server,
//     with the trace context but not the caller's credentials, which
//     were issued for this server (no token passthrough);
//   - the generator's XxxServiceDirect calls an implementation directly.
//
// The response is the result's structured content, and the same JSON its
// text. A Connect error becomes a refusal by its code ([RefusalCode]), with
// the status message as the sentence and google.rpc.BadRequest field
// violations listed; other failures are masked from the model and logged.
//
// # Run-time descriptors
//
// [ReadFiles] (a FileDescriptorSet file), [NewFiles] (a set in memory) and
// [ReflectFiles] (gRPC server reflection) give the descriptors of services
// with no generated code; [AddDescribed] serves one of them with dynamic
// messages, through [Describe] and [AddService].
package protomcp
