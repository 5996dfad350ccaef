package protomcp_test

import (
	"context"
	"fmt"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/ferry-mcp/ferry/protomcp"
	_ "github.com/ferry-mcp/ferry/protomcp/ferrypb/v1" // registers ferry/v1/options.proto
)

// ExampleDescribe computes the tools and prompts of a service known only at
// run time, here compiled from .proto text with source info, so that its
// comments become descriptions.
func ExampleDescribe() {
	const src = `syntax = "proto3";
package weather.v1;
import "ferry/v1/options.proto";

message ForecastRequest { string city = 1; }
message Forecast { string summary = 1; }

service WeatherService {
  option (ferry.v1.prompts) = {
    name: "plan_outing", description: "Plans an outing.",
    template: "Plan an outing in {{city}}.", arguments: "weather.v1.ForecastRequest"
  };
  // Returns the forecast for a city.
  rpc GetForecast(ForecastRequest) returns (Forecast) {
    option idempotency_level = NO_SIDE_EFFECTS;
  }
  // Forgets every forecast.
  rpc ResetAll(ForecastRequest) returns (Forecast);
  rpc Watch(ForecastRequest) returns (stream Forecast);
}`
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"weather.proto": src})},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				// ferry/v1/options.proto, registered by package ferrypb.
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), "weather.proto")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := protomcp.Describe(files[0].Services().ByName("WeatherService"), &protomcp.DescribeOptions{Prefix: "weather_"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range spec.Tools {
		fmt.Printf("%s %q read-only=%v destructive=%v: %s\n", t.Name, t.Title, t.ReadOnly, !t.ReadOnly && !t.Additive, t.Description)
	}
	for _, p := range spec.Prompts {
		fmt.Printf("prompt %s(%s)\n", p.Name, p.Arguments[0].Name)
	}
	for _, s := range spec.Skipped {
		fmt.Printf("no tool for %s: %s\n", s.Method, s.Reason)
	}
	// Output:
	// weather_get_forecast "Get forecast" read-only=true destructive=false: Returns the forecast for a city.
	// weather_reset_all "Reset all" read-only=false destructive=true: Forgets every forecast.
	// prompt plan_outing(city)
	// no tool for Watch: server streaming: a tool call is answered by one result, not a stream of them
}
