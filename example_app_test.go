package ferry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// A tool linked to an app: a client that declared the apps extension
// finds the app's ui:// URI in the tool's _meta and reads the page with
// its CSP; any other client sees a plain tool, whose text result says
// all.
func ExampleServer_AddApp() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Apps: &ferry.AppOptions{}})
	type weatherIn struct {
		City string `json:"city" doc:"The city."`
	}
	type weather struct {
		City    string  `json:"city"`
		Celsius float64 `json:"celsius"`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "weather", Description: "Today's weather in a city.", ReadOnly: true, App: "ui://weather/today"},
		func(_ context.Context, in weatherIn) (weather, error) {
			return weather{City: in.City, Celsius: 21.5}, nil
		})
	srv.AddApp(ferry.App{URI: "ui://weather/today", Name: "today's weather",
		HTML: []byte(`<!doctype html><html><head><title>Weather</title></head><body><div id="sky"></div><script>/* the bridge */</script></body></html>`),
		CSP:  &ferry.AppCSP{ResourceDomains: []string{"https://tiles.example.com"}}})
	h := ferry.NewHTTPHandler(srv, nil)

	post := func(caps, method, name, params string) string {
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+params+`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
				`"io.modelcontextprotocol/clientCapabilities":`+caps+`}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Body.String()
	}
	var list struct {
		Result struct {
			Tools []struct {
				Meta struct {
					UI struct{ ResourceURI string } `json:"ui"`
				} `json:"_meta"`
			}
		}
	}
	ui := `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	_ = json.Unmarshal([]byte(post(ui, "tools/list", "", "")), &list)
	uri := list.Result.Tools[0].Meta.UI.ResourceURI
	fmt.Println("app:", uri)
	var read struct {
		Result struct {
			Contents []struct {
				MIMEType string          `json:"mimeType"`
				Meta     json.RawMessage `json:"_meta"`
			}
		}
	}
	_ = json.Unmarshal([]byte(post(ui, "resources/read", uri, `"uri":"`+uri+`",`)), &read)
	fmt.Println(read.Result.Contents[0].MIMEType, string(read.Result.Contents[0].Meta))

	plain := list
	plain.Result.Tools = nil
	_ = json.Unmarshal([]byte(post(`{}`, "tools/list", "", "")), &plain)
	fmt.Printf("another client: app %q\n", plain.Result.Tools[0].Meta.UI.ResourceURI)
	var call struct {
		Result struct{ Content []struct{ Text string } }
	}
	_ = json.Unmarshal([]byte(post(`{}`, "tools/call", "weather", `"name":"weather","arguments":{"city":"Lyon"},`)), &call)
	fmt.Println("its result:", call.Result.Content[0].Text)
	// Output:
	// app: ui://weather/today
	// text/html;profile=mcp-app {"ui":{"csp":{"resourceDomains":["https://tiles.example.com"]}}}
	// another client: app ""
	// its result: {"city":"Lyon","celsius":21.5}
}
