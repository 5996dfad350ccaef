package ferry

import (
	"slices"
	"strings"
	"testing"
)

func TestGroupOfPackage(t *testing.T) {
	t.Parallel()
	tests := []struct{ pkg, want string }{
		{"example.com/shop/orders", "orders"},
		{"example.com/shop/orders/mcp", "orders"},
		{"example.com/shop/orders/mcptools", "orders"},
		{"example.com/shop/orders/tools/v2", "orders"},
		{"example.com/shop/model/billing/tools", "billing"},
		{"example.com/shop/models/stock", "stock"},
		{"example.com/shop", "shop"},
		{"example.com/shop/v3", "shop"},
		{"main", ""},
		{"example.com/cmd/main", ""},
		{"github.com/ferry-mcp/ferry", ""},
		{"github.com/ferry-mcp/ferry/internal/jsonrpc", ""},
		{"github.com/ferry-mcp/ferry/entity", ""},
		{"github.com/ferry-mcp/ferry/route", ""},
		{"github.com/ferry-mcp/ferry/protomcp/internal/protoschema", ""},
		{"github.com/ferry-mcp/ferry/openapi", ""},
		{"github.com/ferry-mcp/ferry/examples/shop/orders", "orders"},
		{"github.com/ferry-mcp/ferry/entityx", "entityx"},
		{"example.com/odd+name", "odd_name"},
		{"tools", "tools"},
	}
	for _, tt := range tests {
		if got := GroupOfPackage(tt.pkg); got != tt.want {
			t.Errorf("GroupOfPackage(%q) = %q, want %q", tt.pkg, got, tt.want)
		}
	}
}

func TestHandlerGroups(t *testing.T) {
	t.Parallel()
	if got := handlerGroups(nil, strings.ToUpper); !slices.Equal(got, []string{"strings"}) {
		t.Errorf("a function of package strings: %q", got)
	}
	if got := handlerGroups([]string{"b", "a", "b"}, strings.ToUpper); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("given groups are sorted without repeats: %q", got)
	}
	if got := handlerGroups([]string{}, strings.ToUpper); got == nil || len(got) != 0 {
		t.Errorf("an empty, non-nil slice opts out of the derived group: %q", got)
	}
	closure := func() {}
	if got := handlerGroups(nil, closure); got != nil {
		t.Errorf("a closure of this package has no group: %q", got)
	}
	if got := handlerGroups(nil, nil); got != nil {
		t.Errorf("no handler: %q", got)
	}
}

func TestGroupOfFunc(t *testing.T) {
	t.Parallel()
	if got := GroupOfFunc(strings.ToUpper); got != "strings" {
		t.Errorf("GroupOfFunc(strings.ToUpper) = %q", got)
	}
	if got := GroupOfFunc(42); got != "" {
		t.Errorf("GroupOfFunc(42) = %q", got)
	}
}

func TestFuncPackage(t *testing.T) {
	t.Parallel()
	var sb strings.Builder
	if got := funcPackage(sb.WriteString); got != "strings" {
		t.Errorf("a method value: %q", got)
	}
	if got := funcPackage(42); got != "" {
		t.Errorf("not a function: %q", got)
	}
}
