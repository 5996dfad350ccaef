module github.com/ferry-mcp/ferry/entity

go 1.26

require github.com/ferry-mcp/ferry v0.0.0

replace github.com/ferry-mcp/ferry => ../
