package protomcp_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/ferry-mcp/ferry/protomcp"
	"google.golang.org/protobuf/reflect/protoreflect"
)

func TestServiceGroup(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, want string }{
		{"WeatherService", "weather"},
		{"OrderHistoryService", "order_history"},
		{"Shop", "shop"},
		{"Service", "service"},
		{"HTTPGateway", "http_gateway"},
	}
	for _, tt := range tests {
		if got := protomcp.ServiceGroup(protoreflect.Name(tt.name)); got != tt.want {
			t.Errorf("ServiceGroup(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestServiceToolGroups holds that a service's tools are in its group,
// unless their spec names theirs.
func TestServiceToolGroups(t *testing.T) {
	t.Parallel()
	s := testShop(t)
	want := protomcp.ServiceGroup(s.sd.Name())
	spec := *s.spec
	spec.Tools = slices.Clone(spec.Tools)
	spec.Tools[0].Groups = []string{"mine"}
	m := newMCPServer()
	if err := protomcp.AddService(m.srv, &spec, protomcp.Handler(http.NotFoundHandler()), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	for i, tl := range m.srv.Catalog().Tools() {
		w := []string{want}
		if tl.Name == spec.Tools[0].Name {
			w = []string{"mine"}
		}
		if want == "" || !slices.Equal(tl.Groups, w) {
			t.Errorf("tool %d %s: groups %q, want %q", i, tl.Name, tl.Groups, w)
		}
	}
}
