// Package ferrypb holds the Go types of ferry/v1/options.proto, the
// options a .proto file sets to tell protoc-gen-ferry and
// [github.com/ferry-mcp/ferry/protomcp.Describe] how to serve a service:
// (ferry.v1.tool) on a method, (ferry.v1.prompts) on a service and
// (ferry.v1.method_prompts) on a method. Importing it registers the
// extensions in [google.golang.org/protobuf/reflect/protoregistry.GlobalTypes].
//
// The .proto file is protomcp/proto/ferry/v1/options.proto; add
// protomcp/proto to protoc's include path (-I) to import it.
package ferrypb
