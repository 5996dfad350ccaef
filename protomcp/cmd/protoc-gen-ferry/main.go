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
//	prefix=P                   put P before every default tool name
//	connect_package_suffix=S   the suffix of protoc-gen-connect-go's package,
//	                           if its package_suffix option was set; default
//	                           "connect"
//	simple=true                the direct adapter calls the handler interface
//	                           protoc-gen-connect-go writes with simple=true;
//	                           the call's headers cannot reach it then
//	direct=false               leave out the XxxDirect adapters, for code
//	                           generated without protoc-gen-connect-go (the
//	                           tools can still call a remote server through
//	                           protomcp.Client)
//
// With buf, list it as a local plugin beside protoc-gen-go and
// protoc-gen-connect-go in buf.gen.yaml:
//
//	plugins:
//	  - local: protoc-gen-ferry
//	    out: gen
//	    opt: [paths=source_relative, prefix=weather_]
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
	prefix        string
	connectSuffix string
	noDirect      bool
	simple        bool
}

// set sets the parameter name to value; protogen handles its own (paths,
// module, M...) before asking.
func (c *config) set(name, value string) error {
	switch name {
	case "prefix":
		c.prefix = value
		return nil
	case "direct":
		v, err := boolParam(name, value)
		c.noDirect = !v
		return err
	case "simple":
		v, err := boolParam(name, value)
		c.simple = v
		return err
	case "connect_package_suffix":
		if value == "" {
			return fmt.Errorf("connect_package_suffix is empty")
		}
		c.connectSuffix = value
		return nil
	}
	return fmt.Errorf("unknown option %q; it takes prefix, connect_package_suffix, direct and simple, besides paths, module and M", name)
}

// boolParam reads a boolean parameter; a bare name means true, as
// protoc-gen-connect-go reads its simple.
func boolParam(name, value string) (bool, error) {
	switch value {
	case "true", "":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: want true or false", name, value)
}
