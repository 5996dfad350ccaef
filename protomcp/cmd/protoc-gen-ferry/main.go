// Command protoc-gen-ferry is a protoc plugin (it works with protoc and with
// buf generate) that writes, for each .proto file with services, a Go
// package serving the services' unary methods as MCP tools, and the
// prompts the file declares, on a ferry.Server.
//
// For weather/v1/weather.proto with go_package ".../weather/v1;weatherv1"
// it writes weather/v1/weatherv1ferry/weather.ferry.go, a sibling of
// protoc-gen-connect-go's weatherv1connect, with, per service:
//
//	var WeatherServiceSpec = &protomcp.ServiceSpec{...}
//	func AddWeatherServiceTools(srv *ferry.Server, d protomcp.Dispatcher, opts *protomcp.Options) error
//	func WeatherServiceDirect(impl weatherv1connect.WeatherServiceHandler) protomcp.Dispatcher
//
// The spec is what protomcp.Describe computes from the same descriptors;
// see it for the mapping. Problems (tool names that collide, across every
// service of the run too; prompt names equal without regard to case; a
// template placeholder naming no argument) fail the run, each reported.
//
// Usage:
//
//	protoc -I . -I $FERRY/protomcp/proto \
//	  --go_out=. --connect-go_out=. --ferry_out=. --ferry_opt=prefix=weather_ \
//	  weather/v1/weather.proto
//
// Options (--ferry_opt, or opt: in buf.gen.yaml), besides protoc-gen-go's
// paths and module:
//
//	prefix=P   put P before every default tool name
package main

import (
	"fmt"
	"os"

	"google.golang.org/protobuf/compiler/protogen"
)

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Println("protoc-gen-ferry", version) //nolint:forbidigo // a command's own output
		return
	}
	var cfg config
	protogen.Options{ParamFunc: cfg.set}.Run(func(p *protogen.Plugin) error {
		return generate(p, &cfg)
	})
}

// version is the generator's version, written in the header of what it
// generates only through --version, so that output does not change with it.
const version = "v0.1.0"

// config holds the plugin's own parameters.
type config struct {
	prefix string
}

// set sets the parameter name to value; protogen handles its own (paths,
// module, M...) before asking.
func (c *config) set(name, value string) error {
	switch name {
	case "prefix":
		c.prefix = value
		return nil
	}
	return fmt.Errorf("protoc-gen-ferry: unknown option %q; it takes prefix, besides paths, module and M", name)
}
