package ferry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// A request state is bound to the caller: the answer one principal was
// asked for cannot be replayed by another.
func TestRequestStateIsBoundToThePrincipal(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "wipe", Description: "Wipes, after asking."},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			if _, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?"}); err != nil {
				return nil, err
			}
			return ferry.NewResult(ferry.Text("wiped")), nil
		})
	h := ferry.NewHTTPHandler(srv, nil)
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: user}))
		}
		h.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(auth)
	defer ts.Close()
	call := func(user, extra string) (map[string]any, map[string]any) {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wipe"` + extra +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "wipe")
		req.Header.Set("X-User", user)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var msg struct{ Result, Error map[string]any }
		if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
			t.Fatal(err)
		}
		return msg.Result, msg.Error
	}
	first, _ := call("alice", "")
	state, _ := json.Marshal(first["requestState"])
	retry := `,"inputResponses":{"q1":{"action":"accept"}},"requestState":` + string(state)
	if _, e := call("mallory", retry); e == nil || e["code"] != float64(ferry.CodeInvalidParams) {
		t.Errorf("another principal's retry: error = %v, want -32602", e)
	}
	if res, e := call("alice", retry); e != nil || res["resultType"] != "complete" {
		t.Errorf("the principal's own retry: result %v, error %v", res, e)
	}
}
