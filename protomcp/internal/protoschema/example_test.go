package protoschema_test

import (
	"context"
	"fmt"

	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/bufbuild/protocompile"
	"github.com/ferry-mcp/ferry/protomcp/internal/protoschema"
	"google.golang.org/protobuf/reflect/protoregistry"
)

const searchProto = `syntax = "proto3";
package shop.v1;
import "buf/validate/validate.proto";

// Searches the catalogue.
message SearchRequest {
  // Words to look for.
  string query = 1 [(buf.validate.field).string = {min_len: 1, max_len: 200}];
  // At most this many results.
  int32 limit = 2 [(buf.validate.field).int32 = {gte: 1, lte: 50}];
  // Skip results before this cursor.
  int64 after_id = 3;
}
`

func ExampleInput() {
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"search.proto": searchProto})},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path) // buf/validate/validate.proto
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard, // keeps the comments
	}
	files, err := c.Compile(context.Background(), "search.proto")
	if err != nil {
		fmt.Println(err)
		return
	}
	md := files[0].Messages().ByName("SearchRequest")
	in, err := protoschema.Input(md)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(in))
	out, err := protoschema.Output(md)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"type":"object","description":"Searches the catalogue.","properties":{"query":{"type":"string","description":"Words to look for.","minLength":1,"maxLength":200},"limit":{"type":"integer","description":"At most this many results.","minimum":1,"maximum":50},"afterId":{"type":["integer","string"],"description":"Skip results before this cursor.","pattern":"^-?[0-9]+$"}},"required":["query","limit"],"additionalProperties":false}
	// {"type":"object","description":"Searches the catalogue.","properties":{"query":{"type":"string","description":"Words to look for."},"limit":{"type":"integer","description":"At most this many results."},"afterId":{"type":"string","description":"Skip results before this cursor.","pattern":"^-?[0-9]+$"}},"additionalProperties":false}
}
