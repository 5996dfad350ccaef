package main

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-mcp/ferry"
)

// fixture is the state the replicas of one fixture process share, as the
// replicas of a service share its database: the version of the watched
// resource, and the dynamic tool and prompt, which a trigger on any
// replica adds to or removes from every replica. Without it, a trigger
// on one replica would change only that replica's lists, and a client
// whose next request lands on another would see no change. It is safe
// for concurrent use.
type fixture struct {
	version atomic.Int64 // changes of test://watched-resource

	mu       sync.Mutex      // guards the fields below, and orders the changes they make
	servers  []*ferry.Server // the replicas, in the order made
	toolOn   bool            // test_dynamic_tool is listed
	promptOn bool            // test_dynamic_prompt is listed
}

// serverOptions returns the options of a replica's server. keys sign what
// any replica must verify (stateless session ids, request states, list
// cursors), so every replica gets the same.
func serverOptions(logger *slog.Logger, versions []string, keys [][]byte) *ferry.ServerOptions {
	return &ferry.ServerOptions{
		Logger:           logger,
		Instructions:     "Fixtures for the MCP conformance suite.",
		ProtocolVersions: versions,
		SigningKeys:      keys,
		Tasks:            &ferry.TaskOptions{PollInterval: 200 * time.Millisecond},
		Skills:           &ferry.SkillOptions{},
	}
}

// newServer returns a replica: a server with every fixture registered,
// its dynamic tool and prompt as the other replicas have them now.
func (f *fixture) newServer(opts *ferry.ServerOptions) *ferry.Server {
	srv := ferry.NewServer("ferry-everything", "0.1.0", opts)
	addTools(srv)
	addTypedTools(srv)
	addModernTools(srv, f)
	addPrompts(srv)
	addModernPrompts(srv)
	addResources(srv, f)
	addTaskTools(srv)
	addSkills(srv)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.servers = append(f.servers, srv)
	if f.toolOn {
		addDynamicTool(srv)
	}
	if f.promptOn {
		addDynamicPrompt(srv)
	}
	return srv
}

// toggleTool adds test_dynamic_tool to every replica, or removes it if
// listed, and reports whether it added it. Each replica announces its
// change to the sessions it serves.
func (f *fixture) toggleTool() (added bool) {
	return f.toggle(&f.toolOn, addDynamicTool, func(srv *ferry.Server) { srv.RemoveTools("test_dynamic_tool") })
}

// togglePrompt is toggleTool for test_dynamic_prompt.
func (f *fixture) togglePrompt() (added bool) {
	return f.toggle(&f.promptOn, addDynamicPrompt, func(srv *ferry.Server) { srv.RemovePrompts("test_dynamic_prompt") })
}

// toggle flips on, under f.mu, and adds or removes what it stands for on
// every replica.
func (f *fixture) toggle(on *bool, add, remove func(*ferry.Server)) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	*on = !*on
	for _, srv := range f.servers {
		if *on {
			add(srv)
		} else {
			remove(srv)
		}
	}
	return *on
}

func addDynamicTool(srv *ferry.Server) {
	srv.AddTool(ferry.Tool{Name: "test_dynamic_tool", Description: "Comes and goes with test_trigger_tool_change.", RawInputSchema: noArgs()},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return text("here"), nil })
}

func addDynamicPrompt(srv *ferry.Server) {
	ferry.AddPromptTemplate[struct{}](srv, ferry.Prompt{Name: "test_dynamic_prompt",
		Description: "Comes and goes with test_trigger_prompt_change.", Template: "Here."})
}
