package ferrytest_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

type greetIn struct {
	Name string `json:"name" doc:"Who to greet." minLength:"1"`
}

type greetOut struct {
	Greeting string `json:"greeting" doc:"The greeting."`
}

// newServer builds the server the ferrytest tests use: a typed tool, a
// tool for admins only, one that asks the user, one that samples, a
// prompt with completions, a resource and a template.
func newServer() *ferry.Server {
	srv := ferry.NewServer("kit", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), PageSize: 2})
	ferry.AddTool(srv, ferry.Tool{Name: "greet", Description: "Greets someone by name.", ReadOnly: true},
		func(_ context.Context, in greetIn) (greetOut, error) {
			return greetOut{Greeting: "Hello, " + in.Name}, nil
		})
	srv.AddTool(ferry.Tool{Name: "purge", Description: "Purges the caches; for admins only.", Roles: []string{"admin"}, Idempotent: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			p, _ := ferry.PrincipalFromContext(ctx)
			return ferry.NewResult(ferry.Text("purged by " + p.Subject)), nil
		})
	srv.AddTool(ferry.Tool{Name: "confirm", Description: "Asks the user to confirm and says the answer.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?"})
			if err != nil {
				return nil, err
			}
			return ferry.NewResult(ferry.Text(res.Action)), nil
		})
	srv.AddTool(ferry.Tool{Name: "haiku", Description: "Asks the client's model for a haiku.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			res, err := ferry.CreateMessage(ctx, &ferry.CreateMessageParams{MaxTokens: 20,
				Messages: []ferry.PromptMessage{ferry.UserMessage(ferry.Text("a haiku"))}})
			if err != nil {
				return nil, err
			}
			text, _ := res.Content.(*ferry.TextContent)
			return ferry.NewResult(ferry.Text(text.Text)), nil
		})
	srv.AddPrompt(ferry.Prompt{Name: "welcome", Description: "Welcomes a user.",
		Arguments: []ferry.PromptArgument{{Name: "user", Description: "The user.", Required: true, Values: []string{"ada", "alan"}}}},
		func(_ context.Context, req *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{ferry.UserMessage(ferry.Text("Welcome, " + req.Arguments["user"]))}}, nil
		})
	srv.AddResource(ferry.Resource{URI: "kit://motd", Name: "motd", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: "all good"}}, nil
		})
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "kit://users/{id}", Name: "user"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: fmt.Sprintf("user %s", req.Vars["id"])}}, nil
		})
	return srv
}

// fakeT is a testing.TB that records the failures of a kit under test
// instead of failing the test, so that a test can check that the kit
// fails when it should.
type fakeT struct {
	testing.TB
	mu   sync.Mutex // guards errs
	errs []string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// failures runs fn with a fakeT and returns what it reported.
func failures(t *testing.T, fn func(tb testing.TB)) []string {
	t.Helper()
	f := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs
}
