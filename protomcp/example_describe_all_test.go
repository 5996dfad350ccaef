package protomcp_test

import (
	"context"
	"fmt"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ferry-mcp/ferry/protomcp"
)

// DescribeAll describes services that one server is to serve together and
// reports the tool names they would share: here two services that both
// have a GetStatus method.
func ExampleDescribeAll() {
	const src = `syntax = "proto3";
package ops.v1;

message StatusRequest {}
message Status { string state = 1; }

service Billing { rpc GetStatus(StatusRequest) returns (Status); }
service Shipping { rpc GetStatus(StatusRequest) returns (Status); }`
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			Accessor: protocompile.SourceAccessorFromMap(map[string]string{"ops.proto": src}),
		}),
	}
	files, err := c.Compile(context.Background(), "ops.proto")
	if err != nil {
		fmt.Println(err)
		return
	}
	services := files[0].Services()
	both := []protoreflect.ServiceDescriptor{services.ByName("Billing"), services.ByName("Shipping")}

	_, err = protomcp.DescribeAll(both, nil)
	fmt.Println(err)

	// A prefix per service keeps the names apart.
	billing, _ := protomcp.Describe(both[0], &protomcp.DescribeOptions{Prefix: "billing_"})
	shipping, _ := protomcp.Describe(both[1], &protomcp.DescribeOptions{Prefix: "shipping_"})
	fmt.Println(billing.Tools[0].Name, shipping.Tools[0].Name)
	// Output:
	// protomcp: ops.v1.Shipping.GetStatus: tool name "get_status" is also the name of ops.v1.Billing.GetStatus's tool
	// billing_get_status shipping_get_status
}
