module github.com/ferry-mcp/ferry/protomcp

go 1.26.0

replace github.com/ferry-mcp/ferry => ../

require google.golang.org/protobuf v1.36.12

require (
	buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go v1.36.12-20260825204119-511051f7f437.1 // indirect
	connectrpc.com/connect v1.21.1 // indirect
	github.com/bufbuild/protocompile v0.14.1 // indirect
	golang.org/x/sync v0.8.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261110000943-09e21b237f2c // indirect
)
