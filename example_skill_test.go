package ferry_test

import (
	"context"
	"fmt"
	"testing/fstest"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// A server that serves skills lists each with its front matter and a
// manifest of its files (a digest and a size each), and serves the files
// as skill:// resources. Here the skill's directory is a map; an
// embed.FS under fs.Sub serves the same way.
func ExampleServer_AddSkill() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Skills: &ferry.SkillOptions{}})
	srv.AddSkill(ferry.Skill{FS: fstest.MapFS{
		"SKILL.md":             {Data: []byte("---\nname: refunds\ndescription: Decides and files refunds.\n---\nRead references/POLICY.md, then call refund_order.\n")},
		"references/POLICY.md": {Data: []byte("Refunds within 30 days.\n")},
	}})
	ctx := context.Background()
	c, err := client.DialHandler(ctx, ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	var list struct {
		Skills []struct {
			URI         string
			Frontmatter struct{ Name, Description string }
			Resources   []struct {
				URI  string
				Size int
			}
		}
	}
	if err := c.Call(ctx, "skills/list", map[string]any{}, &list); err != nil {
		panic(err)
	}
	for _, sk := range list.Skills {
		fmt.Println(sk.URI, "-", sk.Frontmatter.Description)
		for _, r := range sk.Resources {
			fmt.Println(" ", r.URI, r.Size)
		}
	}
	policy, err := c.ReadResource(ctx, "skill://refunds/references/POLICY.md")
	if err != nil {
		panic(err)
	}
	fmt.Print(policy.Contents[0].Text)
	// Output:
	// skill://refunds/SKILL.md - Decides and files refunds.
	//   skill://refunds/SKILL.md 113
	//   skill://refunds/references/POLICY.md 24
	// Refunds within 30 days.
}

// A server writes a skill about its own tools: what each is for and in
// which order to call them, from their descriptions and hints.
func ExampleServer_AddToolSkill() {
	srv := ferry.NewServer("example", "1.0.0", &ferry.ServerOptions{Skills: &ferry.SkillOptions{}})
	type idIn struct {
		ID string `json:"id" doc:"The ticket's id."`
	}
	ferry.AddTool(srv, ferry.Tool{Name: "close_ticket", Description: "Closes a ticket.", Idempotent: true, ClosedWorld: true},
		func(context.Context, idIn) (string, error) { return "closed", nil })
	ferry.AddTool(srv, ferry.Tool{Name: "list_tickets", Description: "Lists open tickets.", ReadOnly: true, ClosedWorld: true},
		func(context.Context, struct{}) ([]string, error) { return nil, nil })
	srv.AddToolSkill(ferry.ToolSkill{Name: "tickets", Tools: []string{"close_ticket", "list_tickets"}})
	ctx := context.Background()
	c, err := client.DialHandler(ctx, ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	md, err := c.ReadResource(ctx, "skill://tickets/SKILL.md")
	if err != nil {
		panic(err)
	}
	fmt.Print(md.Contents[0].Text)
	// Output:
	// ---
	// name: tickets
	// description: "How to use the tools list_tickets, close_ticket: what each is for and in which order to call them."
	// ---
	// # tickets
	//
	// ## The tools
	//
	// ### `list_tickets` (reads only)
	//
	// Lists open tickets.
	//
	// It takes no arguments.
	//
	// ### `close_ticket` (overwrites; calling it again with the same arguments changes nothing more)
	//
	// Closes a ticket.
	//
	// Arguments:
	// - `id` (required): The ticket's id.
	//
	// ## In which order
	//
	// 1. Look first with `list_tickets`: they only read, so call them freely to find what the user means and the keys the other tools take.
	// 2. Change with `close_ticket`: they overwrite what is there; read it first, and change only what the user asked.
}
