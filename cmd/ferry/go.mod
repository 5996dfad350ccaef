module github.com/ferry-mcp/ferry/cmd/ferry

go 1.26.0

replace (
	github.com/ferry-mcp/ferry => ../..
	github.com/ferry-mcp/ferry/entity => ../../entity
)

require (
	github.com/ferry-mcp/ferry v0.0.0
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/go-jose/go-jose/v4 v4.1.9 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)
