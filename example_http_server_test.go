package ferry_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// Serving MCP on loopback with the recommended limits. The listener is
// bound first, so the address logged or printed is the real one, even for
// port 0.
func ExampleNewHTTPServer() {
	srv := ferry.NewServer("orders", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "greet", Description: "Greets a person."},
		func(ctx context.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name + ".", nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", ferry.NewHTTPHandler(srv, nil))

	ln, err := net.Listen("tcp", "127.0.0.1:0") // loopback: put authentication in front of anything else
	if err != nil {
		fmt.Println(err)
		return
	}
	hs := ferry.NewHTTPServer(ln.Addr().String(), mux)
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	req, _ := http.NewRequest(http.MethodPost, "http://"+hs.Addr+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, strings.Contains(string(body), "Hello, Ada."))
	fmt.Println("read header timeout:", hs.ReadHeaderTimeout, "write timeout:", hs.WriteTimeout)
	// Output:
	// 200 OK true
	// read header timeout: 10s write timeout: 0s
}
