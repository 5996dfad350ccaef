package protomcp

import (
	"context"
	"net/http"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A Dispatcher calls one unary method of a service for a tool call. The
// request has been decoded strictly and validated; the Dispatcher only
// carries it to the implementation and brings the response back.
//
// [Handler] calls through the service's own Connect handler in process, so
// its interceptors and HTTP middleware run; [Client] forwards to a remote
// Connect or gRPC server; the generator writes a direct adapter per
// service that calls the implementation with no reflection.
//
// Invoke is called concurrently, once per tool call, and must be safe for
// concurrent use.
type Dispatcher interface {
	// Invoke calls method with req (a message of the method's input
	// type) and returns its response, a message of the method's output
	// type, or an error. A *connect.Error carries the code that becomes
	// the refusal code (see [RefusalCode]); any other error is masked.
	// header holds what travels with the call: Mcp-Tool, Mcp-Session-Id,
	// the caller's credentials (in process), the trace context and [Options.Forward];
	// Invoke must not modify it.
	Invoke(ctx context.Context, method protoreflect.MethodDescriptor, req proto.Message, header http.Header) (proto.Message, error)
}

// DispatcherFunc adapts a function to a [Dispatcher].
type DispatcherFunc func(ctx context.Context, method protoreflect.MethodDescriptor, req proto.Message, header http.Header) (proto.Message, error)

// Invoke calls f.
func (f DispatcherFunc) Invoke(ctx context.Context, method protoreflect.MethodDescriptor, req proto.Message, header http.Header) (proto.Message, error) {
	return f(ctx, method, req, header)
}
