package ferry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

// uiCaps are client capabilities that declare the apps extension.
const uiCaps = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`

// appServer serves a tool linked to an app.
func appServer(t *testing.T) http.Handler {
	t.Helper()
	srv := ferry.NewServer("apps", "1", &ferry.ServerOptions{Apps: &ferry.AppOptions{}})
	type stockIn struct {
		SKU string `json:"sku" doc:"The product."`
	}
	type stock struct {
		SKU   string `json:"sku"`
		Units int    `json:"units"`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "stock", Description: "Units in stock.", ReadOnly: true, App: "ui://shop/stock"},
		func(_ context.Context, in stockIn) (stock, error) { return stock{SKU: in.SKU, Units: 7}, nil })
	border := true
	srv.AddApp(ferry.App{URI: "ui://shop/stock", Name: "stock chart", HTML: []byte("<!doctype html><p>chart</p>"),
		CSP: &ferry.AppCSP{ConnectDomains: []string{"https://api.example.com"}}, Permissions: ferry.AppPermissions{ClipboardWrite: true},
		PrefersBorder: &border})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return ferry.NewHTTPHandler(srv, nil)
}

// post sends a 2026-07-28 request with the client capabilities caps.
func appPost(t *testing.T, h http.Handler, caps, method, name, params string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":` + caps + `}` + params + `}}`
	return wiretest.Serve(t, h, body, wiretest.Modern(method, name)...).Body
}

// A client that declared the extension sees the app: the tool's
// _meta.ui.resourceUri, the ui:// resource listed, its page with the
// app's MIME type and _meta.ui (CSP, permissions, border).
func TestAppServedToDeclaringClient(t *testing.T) {
	h := appServer(t)
	if got := appPost(t, h, uiCaps, "tools/list", "", ""); !strings.Contains(got, `"_meta":{"ui":{"resourceUri":"ui://shop/stock"}}`) ||
		!strings.Contains(got, `"cacheScope":"private"`) {
		t.Errorf("tools/list = %s, want the app linked, private", got)
	}
	if got := appPost(t, h, uiCaps, "resources/list", "", ""); !strings.Contains(got, `"uri":"ui://shop/stock","name":"stock chart","mimeType":"text/html;profile=mcp-app"`) {
		t.Errorf("resources/list = %s, want the app", got)
	}
	got := appPost(t, h, uiCaps, "resources/read", "ui://shop/stock", `,"uri":"ui://shop/stock"`)
	var read struct {
		Result struct {
			Contents []struct {
				MIMEType string          `json:"mimeType"`
				Text     string          `json:"text"`
				Meta     json.RawMessage `json:"_meta"`
			} `json:"contents"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &read); err != nil || len(read.Result.Contents) != 1 {
		t.Fatalf("resources/read = %s", got)
	}
	c := read.Result.Contents[0]
	wantMeta := `{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"clipboardWrite":{}},"prefersBorder":true}}`
	if c.MIMEType != ferry.AppMIMEType || c.Text != "<!doctype html><p>chart</p>" || string(c.Meta) != wantMeta {
		t.Errorf("contents = %s %q %s, want %s", c.MIMEType, c.Text, c.Meta, wantMeta)
	}
}

// A client that did not declare it never sees the app, and the tool's
// result is whole text.
func TestAppHiddenFromOtherClients(t *testing.T) {
	h := appServer(t)
	if got := appPost(t, h, `{}`, "tools/list", "", ""); strings.Contains(got, "ui://") || !strings.Contains(got, `"name":"stock"`) {
		t.Errorf("tools/list = %s, want the tool without its app", got)
	}
	if got := appPost(t, h, `{}`, "resources/list", "", ""); strings.Contains(got, "ui://") {
		t.Errorf("resources/list = %s, want no app", got)
	}
	if got := appPost(t, h, `{}`, "resources/read", "ui://shop/stock", `,"uri":"ui://shop/stock"`); !strings.Contains(got, `"error"`) {
		t.Errorf("resources/read = %s, want not found", got)
	}
	got := appPost(t, h, `{}`, "tools/call", "stock", `,"name":"stock","arguments":{"sku":"TEA-1"}`)
	if !strings.Contains(got, `"text":"{\"sku\":\"TEA-1\",\"units\":7}"`) {
		t.Errorf("tools/call = %s, want the whole result as text", got)
	}
}

func TestAppProblems(t *testing.T) {
	tests := []struct {
		name string
		opts *ferry.AppOptions
		app  ferry.App
		tool string
		want string
	}{
		{"extension off", nil, ferry.App{URI: "ui://a", Name: "a", HTML: []byte("x")}, "", "ServerOptions.Apps"},
		{"not ui", &ferry.AppOptions{}, ferry.App{URI: "https://a", Name: "a", HTML: []byte("x")}, "", "ui://"},
		{"no page", &ferry.AppOptions{}, ferry.App{URI: "ui://a", Name: "a"}, "", "UTF-8 document"},
		{"bad origin", &ferry.AppOptions{}, ferry.App{URI: "ui://a", Name: "a", HTML: []byte("x"),
			CSP: &ferry.AppCSP{ResourceDomains: []string{"https://x.com 'unsafe-eval'"}}}, "", "CSP origin"},
		{"tool links nothing", &ferry.AppOptions{}, ferry.App{URI: "ui://a", Name: "a", HTML: []byte("x")}, "ui://b", `App "ui://b" is not an app`},
		{"tool links elsewhere", &ferry.AppOptions{}, ferry.App{URI: "ui://a", Name: "a", HTML: []byte("x")}, "https://b", "not a ui:// URI"},
		{"tool without extension", nil, ferry.App{}, "ui://a", "needs the apps extension"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Apps: tt.opts})
			if tt.app.URI != "" {
				srv.AddApp(tt.app)
			}
			if tt.tool != "" {
				srv.AddTool(ferry.Tool{Name: "t", Description: "T.", App: tt.tool},
					func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
			}
			if err := srv.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}
