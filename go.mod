module github.com/ferry-mcp/ferry

go 1.26

require github.com/google/go-cmp v0.7.0

require github.com/yosida95/uritemplate/v3 v3.0.2

require github.com/go-jose/go-jose/v4 v4.1.9
