package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// A resource with requirements keeps a broader template from serving its
// URI to a caller who lacks them: the caller reads it as not found, and
// the template's handler does not run for it.
func TestGuardedResourceIsNotServedByABroaderTemplate(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, SigningKeys: [][]byte{[]byte("shadow-test-key")}})
	srv.AddResource(ferry.Resource{URI: "file:///payslips", Name: "payslips", Scopes: []string{"hr"}}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "from the resource"}}, nil
	})
	templateRan := 0
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "file:///{name}", Name: "files"}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		templateRan++
		return []ferry.ResourceContents{{URI: req.URI, Text: "from the template: " + req.Vars["name"]}}, nil
	})
	ts := httptest.NewServer(asUser(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	read := func(user, scopes, uri string) string {
		id := initLegacyAs(t, ts.URL, user, scopes)
		_, _, body := post(t, ts.URL, user, id, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"`+uri+`"}}`, "X-Scopes", scopes, "Mcp-Protocol-Version", "2025-03-26")
		return body
	}
	if got := read("eve", "", "file:///payslips"); !strings.Contains(got, `"code":-32002`) || strings.Contains(got, "from the") {
		t.Errorf("a caller without hr read the guarded URI: %s", got)
	}
	if templateRan != 0 {
		t.Errorf("the template's handler ran %d times for the guarded URI", templateRan)
	}
	if got := read("hana", "hr", "file:///payslips"); !strings.Contains(got, "from the resource") {
		t.Errorf("a caller with hr: %s", got)
	}
	if got := read("eve", "", "file:///notes"); !strings.Contains(got, "from the template: notes") {
		t.Errorf("another URI of the template: %s", got)
	}
}
