package ferry_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// cursorServer lists the tools a_open, b_admin (role admin, only when
// guarded) and c_open one per page.
func cursorServer(t *testing.T, guarded bool) string {
	t.Helper()
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, PageSize: 1,
		SigningKeys: [][]byte{[]byte("cursor-test-key")}})
	tool := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }
	srv.AddTool(ferry.Tool{Name: "a_open", Description: "Open.", ReadOnly: true}, tool)
	if guarded {
		srv.AddTool(ferry.Tool{Name: "b_admin", Description: "Admin.", Roles: []string{"admin"}}, tool)
	}
	srv.AddTool(ferry.Tool{Name: "c_open", Description: "Open.", ReadOnly: true}, tool)
	ts := httptest.NewServer(asCaller(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A list cursor issued to a caller who sees more (here, one that resumes
// after the hidden b_admin) and replayed by one who sees less gets that
// caller byte for byte the page a server without b_admin gives for the
// same cursor: the next entry it may see, and no word of b_admin.
func TestReplayedCursorRevealsNoHiddenEntry(t *testing.T) {
	guarded, plain := cursorServer(t, true), cursorServer(t, false)
	admin := []string{"X-User", "ann", "X-Roles", "admin"}
	bob := []string{"X-User", "bob"}
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) {
			cursorOf := func(body string) string {
				var msg struct {
					Result struct {
						NextCursor string `json:"nextCursor"`
					} `json:"result"`
				}
				if err := json.Unmarshal([]byte(body), &msg); err != nil || msg.Result.NextCursor == "" {
					t.Fatalf("no cursor in %s", body)
				}
				return msg.Result.NextCursor
			}
			first := e.send(t, guarded, "tools/list", "", "", admin...)
			second := e.send(t, guarded, "tools/list", "", `"cursor":"`+cursorOf(first.body)+`"`, admin...)
			if !strings.Contains(second.body, `"name":"b_admin"`) {
				t.Fatalf("ann's second page: %s", second.body)
			}
			cursor := `"cursor":"` + cursorOf(second.body) + `"`
			got := e.send(t, guarded, "tools/list", "", cursor, bob...)
			want := e.send(t, plain, "tools/list", "", cursor, bob...)
			gotBody := strings.Replace(got.body, `"cacheScope":"private"`, `"cacheScope":"public"`, 1)
			if got.status != want.status || gotBody != want.body {
				t.Errorf("bob's page with ann's cursor\n%s\nthe same without b_admin\n%s", got.body, want.body)
			}
			if strings.Contains(got.body, "b_admin") || !strings.Contains(got.body, `"name":"c_open"`) {
				t.Errorf("bob's page: %s", got.body)
			}
		})
	}
}
