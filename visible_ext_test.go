package ferry_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// asUser sets the principal named by the X-User header, as an
// authenticator in front of the handler would.
func asUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: user, Scopes: strings.Split(r.Header.Get("X-Scopes"), ",")}))
		}
		h.ServeHTTP(w, r)
	})
}

// post sends one JSON-RPC body and returns the status, the session id
// header and the body.
func post(t *testing.T, url, user, session, body string, header ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if user != "" {
		req.Header.Set("X-User", user)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data)
}

// scopedServer serves two tools; "payroll" needs the scope "hr", and
// Visible shows a tool only to callers that hold every scope it needs.
// Without payroll, it serves the same server with that tool never added.
func scopedServer(t *testing.T, withPayroll bool) string {
	t.Helper()
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{
		Logger:      discard,
		SigningKeys: [][]byte{[]byte("visible-test-key")},
		Visible: func(ctx context.Context, tool ferry.ToolInfo) bool {
			p, _ := ferry.PrincipalFromContext(ctx)
			for _, need := range tool.Scopes {
				if p == nil || !slices.Contains(p.Scopes, need) {
					return false
				}
			}
			return true
		},
	})
	ok := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ran")), nil
	}
	srv.AddTool(ferry.Tool{Name: "lookup", Description: "Looks things up.", ReadOnly: true}, ok)
	if withPayroll {
		// Its region is mirrored in an Mcp-Param header, whose check must not
		// tell a hidden tool from an unknown one either.
		srv.AddTool(ferry.Tool{Name: "payroll", Description: "Runs the payroll.", Scopes: []string{"hr"},
			RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}, ok)
	}
	ts := httptest.NewServer(asUser(ferry.NewHTTPHandler(srv, nil)))
	t.Cleanup(ts.Close)
	return ts.URL
}

// A tool hidden from the caller answers tools/call byte for byte as a tool
// that does not exist, in both eras, and is absent from its list.
func TestHiddenToolAnswersLikeUnknownTool(t *testing.T) {
	hidden, absent := scopedServer(t, true), scopedServer(t, false)
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`
	legacy := func(url, body string) string {
		_, session, _ := post(t, url, "bob", "", initialize)
		status, _, answer := post(t, url, "bob", session, body, "Mcp-Protocol-Version", "2025-11-25")
		return http.StatusText(status) + " " + answer
	}
	modern := func(url, body string) string {
		status, _, answer := post(t, url, "bob", "", body, "Mcp-Protocol-Version", "2026-07-28",
			"Mcp-Method", "tools/call", "Mcp-Name", "payroll")
		return http.StatusText(status) + " " + answer
	}
	tests := []struct {
		name string
		send func(url, body string) string
		body string
	}{
		{"legacy", legacy, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"payroll","arguments":{"region":"eu"}}}`},
		{"2026-07-28", modern, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"payroll","arguments":{"region":"eu"},` + modernMeta + `}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := tt.send(hidden, tt.body), tt.send(absent, tt.body)
			if got != want {
				t.Errorf("hidden tool answered\n%s\nunknown tool answered\n%s", got, want)
			}
			if !strings.Contains(want, `unknown tool \"payroll\"`) {
				t.Errorf("unknown tool answered %s", want)
			}
		})
	}
	list := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + modernMeta + `}}`
	for user, want := range map[string]bool{"bob": false, "hr-alice": true} {
		req := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}
		if user == "hr-alice" {
			req = append(req, "X-Scopes", "hr")
		}
		_, _, answer := post(t, hidden, user, "", list, req...)
		if got := strings.Contains(answer, `"payroll"`); got != want {
			t.Errorf("tools/list for %s lists payroll: %t, want %t: %s", user, got, want, answer)
		}
	}
}

// A modern list is "private" to shared caches when its contents depend on
// the caller, and "public" otherwise.
func TestListCacheScopeIsPrivateWhenVisibleIsSet(t *testing.T) {
	for _, tt := range []struct {
		name    string
		visible func(context.Context, ferry.ToolInfo) bool
		want    string
	}{
		{"no Visible", nil, `"cacheScope":"public"`},
		{"Visible", func(context.Context, ferry.ToolInfo) bool { return true }, `"cacheScope":"private"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, Visible: tt.visible})
			srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				return nil, nil
			})
			in := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + modernMeta + `}}` + "\n"
			var out strings.Builder
			if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("tools/list = %s; want %s", out.String(), tt.want)
			}
		})
	}
}
