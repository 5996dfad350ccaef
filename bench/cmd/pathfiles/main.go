// Command pathfiles makes one 2026-07-28 tools/call over HTTP, with the
// default options and an anonymous caller, and writes the coverage of the
// root package from ServeHTTP up to the tool's handler (the coverage of
// the set-up is cleared first, and the handler ends its goroutine, so that
// nothing after it runs but deferred calls). bench/pathfiles.sh builds it
// with -cover and lists the files: what docs/architecture.md calls the
// path's files.
package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/coverage"
	"strings"

	"github.com/ferry-mcp/ferry"
)

const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

func main() {
	if err := run(os.Getenv("GOCOVERDIR")); err != nil {
		fmt.Fprintln(os.Stderr, "pathfiles:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	if dir == "" {
		return fmt.Errorf("build with -cover -covermode=atomic and set GOCOVERDIR")
	}
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "Ends the path."},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			runtime.Goexit()
			return nil, nil
		})
	h := ferry.NewHTTPHandler(srv, nil)
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "t")
	if err := coverage.ClearCounters(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-done
	return coverage.WriteCountersDir(dir)
}
