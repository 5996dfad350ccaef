module github.com/ferry-mcp/ferry/protomcp

go 1.26.0

replace github.com/ferry-mcp/ferry => ../

require google.golang.org/protobuf v1.36.12
