package main

import (
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1ferry"
	"github.com/ferry-mcp/ferry/protomcp"
)

// TestTheGeneratedSpecIsWhatDescribeComputes compiles weather.proto at run
// time, with source info, and checks that protomcp.Describe gives exactly
// the spec protoc-gen-ferry wrote: the run-time path serves the same
// tools, and the generator's Go literals say what it computed.
func TestTheGeneratedSpecIsWhatDescribeComputes(t *testing.T) {
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: []string{"proto", "../../protomcp/proto"}},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path) // buf/validate, field_behavior
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(t.Context(), "weather/v1/weather.proto")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := protomcp.Describe(files[0].Services().ByName("WeatherService"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(weatherv1ferry.WeatherServiceSpec, spec); diff != "" {
		t.Errorf("generated (-) and computed (+) specs differ:\n%s", diff)
	}
}
