package ferry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// orderTools registers tools of every kind, in a scrambled order.
func orderTools(srv *ferry.Server) {
	type idIn struct {
		ID string `json:"id" doc:"The order's id, from list_orders."`
	}
	type listIn struct {
		Status string `json:"status,omitempty" doc:"Only orders in this status."`
	}
	noop := func(context.Context, idIn) (string, error) { return "", nil }
	g := []string{"orders"}
	ferry.AddTool(srv, ferry.Tool{Name: "delete_order", Description: "Deletes an order.", Groups: g}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "update_order", Description: "Replaces an order's lines.", Idempotent: true, ClosedWorld: true, Groups: g}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "get_order", Description: "Gets one order.", ReadOnly: true, ClosedWorld: true, Groups: g}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "create_order", Description: "Places an \"order\".", Additive: true, ClosedWorld: true, Groups: g}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "list_orders", Description: "Lists orders.", ReadOnly: true, ClosedWorld: true, Groups: g},
		func(context.Context, listIn) (string, error) { return "", nil })
	ferry.AddTool(srv, ferry.Tool{Name: "other", Description: "Not an order tool.", ReadOnly: true, Groups: []string{"misc"}}, noop)
}

func TestAddToolSkill(t *testing.T) {
	srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Skills: &ferry.SkillOptions{}})
	orderTools(srv)
	srv.DescribeGroup("orders", "Orders: what customers bought.")
	srv.AddToolSkill(ferry.ToolSkill{Name: "orders", Group: "orders", Instructions: "Orders are never edited once shipped."})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	h := ferry.NewHTTPHandler(srv, nil)
	a := skillCall(t, h, "skills/get", `"uri":"skill://orders/SKILL.md"`)
	var entry struct {
		Frontmatter map[string]string `json:"frontmatter"`
	}
	if err := json.Unmarshal(a.Result["skill"], &entry); err != nil || !strings.Contains(entry.Frontmatter["description"], "list_orders, get_order, create_order, update_order, delete_order") {
		t.Fatalf("skills/get = %s %v", a.Result["skill"], a.Error)
	}
	r := skillCall(t, h, "resources/read", `"uri":"skill://orders/SKILL.md"`)
	var contents []struct{ Text string }
	_ = json.Unmarshal(r.Result["contents"], &contents)
	if len(contents) != 1 {
		t.Fatalf("resources/read = %s", r.Result["contents"])
	}
	md := contents[0].Text
	// The order of calls: find, read one, add, overwrite, destroy.
	order := []string{"Orders are never edited", "Orders: what customers bought.",
		"### `list_orders` (reads only)", "### `get_order` (reads only)", "### `create_order` (writes, destroys nothing)",
		"### `update_order` (overwrites;", "### `delete_order` (may destroy data)",
		"1. Look first with `list_orders`", "2. Read one thing with `get_order`", "3. Then write with `create_order`",
		"4. Change with `update_order`", "5. Last, and only once the user agreed: `delete_order`",
		"`delete_order` reach outside this service"}
	at := 0
	for _, want := range order {
		i := strings.Index(md[at:], want)
		if i < 0 {
			t.Fatalf("SKILL.md lacks %q after byte %d:\n%s", want, at, md)
		}
		at += i + len(want)
	}
	for _, want := range []string{"- `id` (required): The order's id, from list_orders.", "- `status`: Only orders in this status.", "Places an \"order\"."} {
		if !strings.Contains(md, want) {
			t.Errorf("SKILL.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "`other`") {
		t.Errorf("SKILL.md names a tool of another group:\n%s", md)
	}
}

func TestAddToolSkillProblems(t *testing.T) {
	tests := []struct {
		name string
		ts   ferry.ToolSkill
		opts *ferry.SkillOptions
		want string
	}{
		{"unknown tool", ferry.ToolSkill{Name: "x", Tools: []string{"get_order", "nope"}}, &ferry.SkillOptions{}, "no tool named nope"},
		{"empty group", ferry.ToolSkill{Name: "x", Group: "nobody"}, &ferry.SkillOptions{}, `no tool in the group "nobody"`},
		{"bad name", ferry.ToolSkill{Name: "X_Y", Tools: []string{"get_order"}}, &ferry.SkillOptions{}, "lowercase"},
		{"extension off", ferry.ToolSkill{Name: "x", Tools: []string{"get_order"}}, nil, "ServerOptions.Skills"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ferry.NewServer("shop", "1", &ferry.ServerOptions{Skills: tt.opts})
			orderTools(srv)
			srv.AddToolSkill(tt.ts)
			if err := srv.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}
