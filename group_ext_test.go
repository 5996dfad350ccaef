package ferry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/google/go-cmp/cmp"
)

// groupedServer serves entries of two groups, billing and stock, and one
// of none: a tool of each (billing's needs a role), a prompt of each, a
// resource of each and a template of each.
func groupedServer(t testing.TB, opts *ferry.ServerOptions) *ferry.Server {
	t.Helper()
	s := ferry.NewServer("grouped", "1", opts)
	s.DescribeGroup("billing", "Invoices and payments.")
	echo := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("ok")), nil
	}
	s.AddTool(ferry.Tool{Name: "pay_invoice", Description: "Pays an invoice.", Groups: []string{"billing"}}, echo)
	s.AddTool(ferry.Tool{Name: "list_invoices", Description: "Lists invoices.", ReadOnly: true, Groups: []string{"billing"}}, echo)
	s.AddTool(ferry.Tool{Name: "refund", Description: "Refunds a payment.", Groups: []string{"billing"}, Roles: []string{"admin"}}, echo)
	s.AddTool(ferry.Tool{Name: "count_stock", Description: "Counts stock.", ReadOnly: true, Groups: []string{"stock"}}, echo)
	s.AddTool(ferry.Tool{Name: "both", Description: "Belongs to both.", ReadOnly: true, Groups: []string{"stock", "billing"}}, echo)
	s.AddTool(ferry.Tool{Name: "loose", Description: "Belongs to none.", ReadOnly: true, Groups: []string{}}, echo)
	prompt := func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		return &ferry.PromptResult{}, nil
	}
	s.AddPrompt(ferry.Prompt{Name: "dunning", Description: "Asks for payment.", Groups: []string{"billing"},
		Arguments: []ferry.PromptArgument{{Name: "tone", Values: []string{"firm", "friendly"}}}}, prompt)
	s.AddPrompt(ferry.Prompt{Name: "restock", Description: "Plans a restock.", Groups: []string{"stock"},
		Arguments: []ferry.PromptArgument{{Name: "sku", Values: []string{"a1", "a2"}}}}, prompt)
	read := func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "x"}}, nil
	}
	s.AddResource(ferry.Resource{URI: "shop://billing/terms", Name: "terms", Groups: []string{"billing"}}, read)
	s.AddResource(ferry.Resource{URI: "shop://stock/levels", Name: "levels", Groups: []string{"stock"}}, read)
	s.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "shop://invoices/{id}", Name: "invoice", Groups: []string{"billing"},
		Values: map[string][]string{"id": {"1", "2"}}}, read)
	s.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "shop://items/{sku}", Name: "item", Groups: []string{"stock"},
		Values: map[string][]string{"sku": {"a1"}}}, read)
	return s
}

func TestServerGroups(t *testing.T) {
	t.Parallel()
	s := groupedServer(t, nil)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	want := []ferry.GroupInfo{
		{Name: "billing", Description: "Invoices and payments.", Tools: 4, Prompts: 1, Resources: 1, Templates: 1},
		{Name: "stock", Tools: 2, Prompts: 1, Resources: 1, Templates: 1},
	}
	if diff := cmp.Diff(want, s.Groups()); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	s.RemoveTools("count_stock", "both")
	s.RemovePrompts("restock")
	if got := s.Groups(); got[1].Tools != 0 || got[1].Prompts != 0 || got[0].Tools != 3 {
		t.Errorf("counts after removals: %+v", got)
	}
	if info, _ := s.Catalog().Lookup("pay_invoice"); !cmp.Equal(info.Groups, []string{"billing"}) {
		t.Errorf("the catalog's groups: %q", info.Groups)
	}
}

func TestServerGroupsDerived(t *testing.T) {
	t.Parallel()
	s := ferry.NewServer("derived", "1", nil)
	// strings.ToUpper stands for a handler declared in another package:
	// its package names its group.
	ferry.AddTool(s, ferry.Tool{Name: "upper", Description: "Upper-cases.", ReadOnly: true}, func(_ context.Context, in struct {
		S string `json:"s"`
	}) (string, error) {
		return strings.ToUpper(in.S), nil
	})
	info, _ := s.Catalog().Lookup("upper")
	if !cmp.Equal(info.Groups, []string{"ferry_test"}) {
		t.Errorf("a handler of package ferry_test is in group ferry_test, got %q", info.Groups)
	}
}

func TestServerGroupsCheck(t *testing.T) {
	t.Parallel()
	s := ferry.NewServer("bad", "1", nil)
	s.AddTool(ferry.Tool{Name: "t", Description: "A tool.", Groups: []string{"no spaces"}},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	s.DescribeGroup("a/b", "Slashes.")
	err := s.Check()
	if err == nil || !strings.Contains(err.Error(), `"no spaces"`) || !strings.Contains(err.Error(), `"a/b"`) {
		t.Errorf("Check = %v, want both bad names named", err)
	}
}
