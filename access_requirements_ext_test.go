package ferry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// DescribeRequirements appends what each entry needs to its listed
// description, and the length limit applies to the result.
func TestDescribeRequirementsAppendsASentence(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, DescribeRequirements: true})
	srv.AddTool(ferry.Tool{Name: "refund", Description: "Refunds.", Scopes: []string{"orders:write", "payments"}, Roles: []string{"clerk"}}, done)
	srv.AddPrompt(ferry.Prompt{Name: "board", Description: "Briefs the board.", Roles: []string{"admin"}}, nil2prompt)
	srv.AddResource(ferry.Resource{URI: "file:///pay", Name: "pay", Description: "Payslips.", Scopes: []string{"hr"}}, nil2read)
	root := &ferry.Principal{Subject: "root", Scopes: []string{"orders:write", "payments", "hr"}, Roles: []string{"clerk", "admin"}}
	var out strings.Builder
	in := strings.Join([]string{
		modernList,
		`{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{` + modernMeta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{` + modernMeta + `}}`,
	}, "\n") + "\n"
	if err := srv.Run(ferry.WithPrincipal(t.Context(), root), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"description":"Refunds. Requires the scopes orders:write, payments. Only for the role clerk."`,
		`"description":"Briefs the board. Only for the role admin."`,
		`"description":"Payslips. Requires the scope hr."`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the lists lack %s:\n%s", want, out.String())
		}
	}

	long := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, DescribeRequirements: true})
	long.AddTool(ferry.Tool{Name: "t", Description: strings.Repeat("a", 1000) + ".", Roles: []string{"admin"}}, done)
	if err := long.Check(); err == nil || !strings.Contains(err.Error(), "description is 1026 characters") {
		t.Errorf("Check() = %v; want the description with its sentence refused", err)
	}
}

func nil2prompt(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
	return &ferry.PromptResult{}, nil
}

func nil2read(context.Context, *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
	return nil, nil
}
