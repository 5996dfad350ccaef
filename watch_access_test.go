package ferry

import (
	"context"
	"log/slog"
	"testing"
)

// A list change is told only to callers who see an entry that changed:
// adding or removing an entry hidden from a caller tells it nothing.
func TestListChangesReachOnlyThoseWhoSeeTheEntry(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	all := func(change) bool { return true }
	bob := newWatcher(all)
	bob.caller = WithPrincipal(context.Background(), &Principal{Subject: "bob"})
	admin := newWatcher(all)
	admin.caller = WithPrincipal(context.Background(), &Principal{Subject: "ann", Roles: []string{"admin"}, Scopes: []string{"hr"}})
	anonymous := newWatcher(all)
	for _, w := range []*watcher{bob, admin, anonymous} {
		defer srv.watch(w)()
	}
	h := func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil }
	read := func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) { return nil, nil }
	steps := []struct {
		name string
		do   func()
		want map[*watcher]bool
	}{
		{"add a tool for admins", func() { srv.AddTool(Tool{Name: "purge", Description: "Purges.", Roles: []string{"admin"}}, h) },
			map[*watcher]bool{admin: true}},
		{"remove it", func() { srv.RemoveTools("purge") }, map[*watcher]bool{admin: true}},
		{"add a prompt for hr", func() {
			srv.AddPrompt(Prompt{Name: "pay", Description: "Pay.", Scopes: []string{"hr"}},
				func(context.Context, *GetPromptRequest) (*PromptResult, error) { return nil, nil })
		}, map[*watcher]bool{admin: true}},
		{"add a resource for hr", func() { srv.AddResource(Resource{URI: "r://pay", Name: "pay", Scopes: []string{"hr"}}, read) },
			map[*watcher]bool{admin: true}},
		{"add an open tool", func() { srv.AddTool(Tool{Name: "ping", Description: "Pings."}, h) },
			map[*watcher]bool{admin: true, bob: true, anonymous: true}},
		{"remove the open tool with a hidden one", func() { srv.RemoveTools("ping", "pay") },
			map[*watcher]bool{admin: true, bob: true, anonymous: true}},
	}
	for _, st := range steps {
		st.do()
		for name, w := range map[string]*watcher{"bob": bob, "admin": admin, "anonymous": anonymous} {
			if got := len(w.take()) > 0; got != st.want[w] {
				t.Errorf("%s: %s told: %v, want %v", st.name, name, got, st.want[w])
			}
			w.idle()
		}
	}
}
