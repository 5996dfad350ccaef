module github.com/ferry-mcp/ferry/bench/protomcp

go 1.26.0

replace (
	github.com/ferry-mcp/ferry => ../..
	github.com/ferry-mcp/ferry/examples/weather => ../../examples/weather
	github.com/ferry-mcp/ferry/protomcp => ../../protomcp
)

require (
	connectrpc.com/connect v1.21.1
	github.com/ferry-mcp/ferry v0.0.0
	github.com/ferry-mcp/ferry/examples/weather v0.0.0-00010101000000-000000000000
	github.com/ferry-mcp/ferry/protomcp v0.0.0-00010101000000-000000000000
)

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.1 // indirect
	buf.build/go/protovalidate v1.4.0 // indirect
	cel.dev/cel-go v0.32.0 // indirect
	cel.dev/expr v0.25.3 // indirect
	connectrpc.com/grpcreflect v1.3.1 // indirect
	github.com/antlr4-go/antlr/v4 v4.13.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/exp v0.0.0-20260820142414-ca536658362e // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
