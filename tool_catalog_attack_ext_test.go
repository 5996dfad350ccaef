package ferry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// An authorizer in front of the handler reads the called tool with
// ParseToolCalls: for every spelling of params.name an attacker can send
// (twice, case variants, escapes, a Kelvin sign, a NUL), either the tool
// the server runs is the one ParseToolCalls named, or ParseToolCalls
// fails and the server refuses the call, running nothing, so the
// authorizer cannot be shown one tool while the server runs another.
func TestParseToolCallsNamesTheToolTheServerRuns(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, ProtocolVersions: []string{"2025-11-25", "2025-03-26"}})
	for _, n := range []string{"lookup", "erase"} {
		srv.AddTool(ferry.Tool{Name: n, Description: "d"}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("ran:" + n + ".")), nil
		})
	}
	for _, params := range []string{
		`"name":"lookup","name":"erase","arguments":{}`,
		`"name":"erase","Name":"lookup","arguments":{}`,
		`"name":"erase","arguments":{},"\u006eame":"lookup"`,
		`"name":"erase","nAme":"lookup","arguments":{}`,
		`"name":"erase","arguments":{},"name\u0000":"lookup"`,
		`"name":"erase","arguments":{},"na\u212Ae":"lookup"`,
		`"name":"erase","nam\u0065":"lookup"`,
	} {
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + params + `}}`,
			`[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + params + `}}]`,
		} {
			names, err := ferry.ParseToolCalls([]byte(body))
			if err == nil && len(names) != 1 {
				t.Fatalf("ParseToolCalls(%s) = %v, %v", body, names, err)
			}
			var out strings.Builder
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`
			_ = srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(init + "\n" + body + "\n"), Writer: &out})
			switch {
			case err != nil && (strings.Contains(out.String(), "ran:") || !strings.Contains(out.String(), `"code":-32602`)):
				t.Errorf("%s: ParseToolCalls fails (%v), the server answered\n%s", body, err, out.String())
			case err == nil && !strings.Contains(out.String(), "ran:"+names[0]+"."):
				t.Errorf("%s: ParseToolCalls says %s, the server answered\n%s", body, names[0], out.String())
			}
		}
	}
}
