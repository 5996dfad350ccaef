package protomcp_test

import (
	"fmt"
	"log"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/ferry-mcp/ferry/protomcp"
)

// A registry of files compiled at run time: here a file linked into the
// program stands in for the output of a .proto compiler.
func ExampleFilesOf() {
	files, err := protomcp.FilesOf(structpb.File_google_protobuf_struct_proto)
	if err != nil {
		log.Fatal(err)
	}
	d, err := files.FindDescriptorByName("google.protobuf.ListValue")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.FullName(), files.NumFiles())
	// Output: google.protobuf.ListValue 1
}
