module github.com/ferry-mcp/ferry/protomcp

go 1.26.0

replace github.com/ferry-mcp/ferry => ../

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.1
	connectrpc.com/connect v1.21.1
	github.com/bufbuild/protocompile v0.14.1
	github.com/ferry-mcp/ferry v0.0.0
	github.com/google/go-cmp v0.7.0
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sync v0.8.0 // indirect
)
