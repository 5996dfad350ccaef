module github.com/ferry-mcp/ferry/conformance

go 1.26

replace github.com/ferry-mcp/ferry => ../

require github.com/ferry-mcp/ferry v0.0.0

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
)
