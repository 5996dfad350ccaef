package protomcp

import (
	"net/http"

	"google.golang.org/protobuf/reflect/protoregistry"
)

// Options configures [AddService]. The zero value is valid; every field
// documents its default. AddService copies it.
type Options struct {
	// Files resolves the service and its messages by name. If nil,
	// [protoregistry.GlobalFiles] is used, where the generated .pb.go
	// files register themselves; the run-time path passes the files of a
	// descriptor set.
	Files *protoregistry.Files
	// Types resolves the Go types of the messages. A message with a
	// registered Go type is decoded into it; any other into a dynamic
	// message ([dynamicpb]). If nil, [protoregistry.GlobalTypes] is used.
	// The run-time path passes an empty one, so that every message is
	// dynamic and matches the descriptors it was given.
	Types *protoregistry.Types
	// Forward names the headers of the MCP request that travel with every
	// call, besides traceparent and tracestate, which always do, and
	// Authorization and Cookie, which do when the service runs in the
	// same process ([Handler], a direct adapter, a [DispatcherFunc]) and
	// not to a remote server ([Client]) unless named here: the MCP
	// client's token was issued for this server (no token passthrough).
	Forward []string
	// Header holds fixed headers set on every call, such as a service
	// token over stdio. A forwarded header of the MCP request replaces
	// one of the same name, so an HTTP caller's own credentials win.
	// Host, Content-*, Accept-Encoding, Transfer-Encoding, Te, Trailer,
	// Expect, the hop-by-hop headers, Connect-*, Grpc-* and Mcp-* cannot
	// be set or forwarded: AddService reports them. If nil, none are set.
	//
	// A fixed Authorization is used by every call that brings none:
	// served over HTTP without an authenticator in front of the MCP
	// endpoint, it lends the service token to anonymous callers. Set one
	// only on a server served over stdio, or behind an authenticator that
	// refuses anonymous requests.
	Header http.Header
	// Describe configures how [AddDescribed] computes the spec (a tool
	// name prefix). [AddService] does not read it.
	Describe DescribeOptions
}
