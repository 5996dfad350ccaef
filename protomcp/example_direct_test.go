package protomcp_test

import (
	"context"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/ferry-mcp/ferry/protomcp"
)

// The direct dispatcher protoc-gen-ferry writes (XxxServiceDirect) is a
// switch over the service's methods, each one a DirectCall of the
// implementation's method, written here by hand for a service Echo whose
// Say method takes and returns a google.protobuf.StringValue.
func ExampleDirectCall() {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"echo.proto": `syntax = "proto3";
package demo.v1;
import "google/protobuf/wrappers.proto";
service Echo { rpc Say(google.protobuf.StringValue) returns (google.protobuf.StringValue); }`}),
	})}
	files, err := c.Compile(context.Background(), "echo.proto")
	if err != nil {
		fmt.Println(err)
		return
	}
	sd := files[0].Services().ByName("Echo")

	// The implementation, as for a Connect handler.
	say := func(_ context.Context, r *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
		return connect.NewResponse(wrapperspb.String(r.Header().Get("Mcp-Tool") + " heard " + r.Msg.GetValue())), nil
	}
	direct := protomcp.DispatcherFunc(func(ctx context.Context, md protoreflect.MethodDescriptor, req proto.Message, header http.Header) (proto.Message, error) {
		switch md.FullName() {
		case "demo.v1.Echo.Say":
			return protomcp.DirectCall(ctx, md, req, header, say)
		}
		return nil, protomcp.DirectUnknownMethod(sd.FullName(), md)
	})

	// AddService calls Invoke like this for each tool call.
	out, err := direct.Invoke(context.Background(), sd.Methods().ByName("Say"), wrapperspb.String("hello"), http.Header{"Mcp-Tool": {"say"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.(*wrapperspb.StringValue).GetValue())
	// Output:
	// say heard hello
}
