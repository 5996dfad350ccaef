// Command protodeps writes, to the file its one argument names, a
// FileDescriptorSet of the .proto files that Ferry's protos import but no
// machine without the Buf Schema Registry has as text:
// buf/validate/validate.proto, google/api/field_behavior.proto and
// google/protobuf/descriptor.proto, with every file they import. It takes
// them from the Go modules that register them, so protoc can be given the
// set with --descriptor_set_in instead of include directories.
package main

import (
	"fmt"
	"os"

	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate" // registers buf/validate/validate.proto
	_ "google.golang.org/genproto/googleapis/api/annotations"                   // registers google/api/field_behavior.proto
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
)

var roots = []string{
	"buf/validate/validate.proto",
	"google/api/field_behavior.proto",
	"google/protobuf/descriptor.proto",
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: protodeps OUT.binpb")
		os.Exit(2)
	}
	var fds []protoreflect.FileDescriptor
	for _, path := range roots {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "protodeps: %s: %v\n", path, err)
			os.Exit(1)
		}
		fds = append(fds, fd)
	}
	set := protoset.Of(fds...)
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o600) //nolint:gosec // the output path is the build script's own argument
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "protodeps:", err)
		os.Exit(1)
	}
}
