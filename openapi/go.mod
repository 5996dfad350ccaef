module github.com/ferry-mcp/ferry/openapi

go 1.26.0

replace github.com/ferry-mcp/ferry => ../

require (
	github.com/ferry-mcp/ferry v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/pb33f/go-yaml v0.1.1
	github.com/pb33f/libopenapi v0.42.4
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.2 // indirect
	github.com/pb33f/jsonpath v0.8.5 // indirect
	github.com/pb33f/ordered-map/v2 v2.3.2 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
