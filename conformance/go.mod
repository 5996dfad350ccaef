module github.com/ferry-mcp/ferry/conformance

go 1.26.0

replace (
	github.com/ferry-mcp/ferry => ../
	github.com/ferry-mcp/ferry/redisstore => ../redisstore
)

require (
	github.com/ferry-mcp/ferry v0.0.0
	github.com/ferry-mcp/ferry/redisstore v0.0.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
