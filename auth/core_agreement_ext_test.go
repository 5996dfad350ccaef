package auth_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
)

// These cases check that the core's enforcement of Tool.Roles and
// Tool.Scopes, ServerOptions.StepUp and HTTPOptions.ResourceMetadataURL
// agree with the middleware: the challenge of a 403 has the format of
// auth.Challenge.

// purge needs the role admin; report needs the scopes orders:read and
// audit:read.
func withRestrictedTools(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "purge", Description: "Purges.", Roles: []string{"admin"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("purged")), nil
		})
	srv.AddTool(ferry.Tool{Name: "report", Description: "Reports.", ReadOnly: true, Scopes: []string{"orders:read", "audit:read"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("reported")), nil
		})
}

// A valid token lacking a role calls a hidden tool: it gets exactly the
// unknown-tool answer, and the tool is absent from a private list.
func TestAttackHiddenToolAnswersAsUnknown(t *testing.T) {
	p := newProtectedWith(t, setup{tools: withRestrictedTools})
	bare := newProtected(t, nil) // the same server without purge and report
	bob := bearer(rsaToken(t, claims("bob", "orders:read")))
	got, want := modernCall(t, p.url, "purge", "", bob...), modernCall(t, bare.url, "purge", "", bob...)
	if got != want {
		t.Errorf("hidden tool: got %+v, want the unknown tool's %+v", got, want)
	}
	list := do(t, p.url, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		append([]string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}, bob...)...)
	if strings.Contains(list.body, `"purge"`) || !strings.Contains(list.body, `"cacheScope":"private"`) {
		t.Errorf("tools/list for bob: %s; want no purge, cacheScope private", list.body)
	}
	admin := modernCall(t, p.url, "purge", "", "X-API-Key", adminKey)
	if admin.status != http.StatusOK || !strings.Contains(admin.body, "purged") {
		t.Errorf("the admin key calls purge: %+v", admin)
	}
}

// A valid token lacking scopes calls a step-up tool: 403 with one
// challenge naming exactly the missing scopes, in the format of
// auth.Challenge, and the tool does not run.
func TestAttackStepUpChallengeNamesMissingScopes(t *testing.T) {
	res, err := auth.NewResource(testResource, []string{testIssuer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := newProtectedWith(t, setup{
		tools:  withRestrictedTools,
		server: &ferry.ServerOptions{StepUp: true},
		http:   &ferry.HTTPOptions{ResourceMetadataURL: res.MetadataURL()},
	})
	alice := bearer(rsaToken(t, claims("alice", "orders:read")))
	for _, era := range []string{"modern", "legacy"} {
		var got answer
		if era == "modern" {
			got = modernCall(t, p.url, "report", "", alice...)
		} else {
			got = legacyCall(t, p.url, initialize(t, p.url, alice...), "report", alice...)
		}
		want := auth.Challenge{Error: auth.ErrorInsufficientScope, Scopes: []string{"audit:read"}, ResourceMetadata: testMetadata}.String()
		if got.status != http.StatusForbidden || !strings.HasPrefix(got.challenge, want) {
			t.Errorf("%s: status %d, challenge %q; want 403 and a challenge starting %q", era, got.status, got.challenge, want)
		}
	}
	full := bearer(rsaToken(t, claims("alice", "orders:read", "audit:read")))
	if got := modernCall(t, p.url, "report", "", full...); got.status != http.StatusOK || !strings.Contains(got.body, "reported") {
		t.Errorf("with every scope: %+v", got)
	}
}
