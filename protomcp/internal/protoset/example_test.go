package protoset_test

import (
	"fmt"

	"google.golang.org/protobuf/types/known/apipb"

	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
)

// The set of api.proto holds every file it imports, directly or through
// type.proto, each before the files that import it.
func ExampleOf() {
	set := protoset.Of(apipb.File_google_protobuf_api_proto)
	for _, f := range set.GetFile() {
		fmt.Println(f.GetName())
	}
	// Output:
	// google/protobuf/source_context.proto
	// google/protobuf/any.proto
	// google/protobuf/type.proto
	// google/protobuf/api.proto
}
