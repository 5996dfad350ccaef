package ferry_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// serveLine sends one legacy request after initialize over stdio and
// returns the answer's line.
func serveLine(t *testing.T, srv *ferry.Server, request string) string {
	t.Helper()
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}` + "\n" + request + "\n"
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[len(lines)-1]
}

func TestEnumTagsRestrictAndSuggestTagsComplete(t *testing.T) {
	type units struct {
		Units string `json:"units" enum:"metric,imperial"`
		City  string `json:"city,omitempty" suggest:"Oslo,Osaka"`
	}
	srv := ferry.NewServer("s", "1", nil)
	ferry.AddPromptTemplate[units](srv, ferry.Prompt{Name: "weather", Description: "Weather in units.", Template: "Use {{units}} units."})
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "orders://{region}/{id}", Name: "order"},
		func(_ context.Context, uri string, v struct {
			Region string `json:"region" enum:"emea,apac"`
			ID     int    `json:"id"`
		}) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: uri, Text: v.Region}}, nil
		})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ request, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"weather","arguments":{"units":"kelvin"}}}`,
			`argument \"units\" must be one of metric, imperial, got \"kelvin\"`},
		{`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"weather","arguments":{"units":"metric","city":"Lima"}}}`,
			`Use metric units.`},
		{`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"weather"},"argument":{"name":"city","value":"os"}}}`,
			`"values":["Oslo","Osaka"]`},
		{`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"weather"},"argument":{"name":"units","value":""}}}`,
			`"values":["metric","imperial"]`},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"orders://mars/1"}}`, `"code":-32002`},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"orders://apac/x"}}`, `"code":-32002`},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"orders://apac/7"}}`, `"text":"apac"`},
	} {
		if got := serveLine(t, srv, tt.request); !strings.Contains(got, tt.want) {
			t.Errorf("%s\n got %s\nwant it to contain %s", tt.request, got, tt.want)
		}
	}
}
