module github.com/ferry-mcp/ferry

go 1.26
