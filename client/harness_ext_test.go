package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// The test binary doubles as a stdio server: run with this variable set,
// it serves newTestServer on stdin and stdout (versions, comma-separated,
// in the variable's value; "all" for every one).
const stdioEnv = "FERRY_CLIENT_TEST_STDIO"

// waiting and cancelled count the calls of the wait tool that started and
// that saw their context end: a stdio server process reports its own.
var waiting, cancelled atomic.Int64

func TestMain(m *testing.M) {
	if v := os.Getenv(stdioEnv); v == "flood" || v == "chatter" || v == "latin1" || v == "deaf" || v == "orphan" {
		hostileStdio(v)
	} else if v == "garbage" {
		fmt.Println("starting up...")
		os.Exit(0)
	} else if v != "" {
		var versions []string
		if v != "all" {
			versions = strings.Split(v, ",")
		}
		srv := newTestServer(&ferry.ServerOptions{ProtocolVersions: versions, PageSize: 2})
		if err := srv.Run(context.Background(), &ferry.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type echoIn struct {
	Text string `json:"text" doc:"Text to echo." minLength:"1"`
}

type echoOut struct {
	Echo string `json:"echo" doc:"The text."`
}

// newTestServer builds the server the client tests talk to: typed and raw
// tools, a tool that asks the user, one that samples, prompts, resources
// and a template. opts may be nil.
func newTestServer(opts *ferry.ServerOptions) *ferry.Server {
	o := ferry.ServerOptions{}
	if opts != nil {
		o = *opts // parallel tests share their options
	}
	opts = &o
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Instructions == "" {
		opts.Instructions = "Test fixtures."
	}
	srv := ferry.NewServer("client-test", "1.2.3", opts)
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Description: "Returns the text it is given.", ReadOnly: true},
		func(_ context.Context, in echoIn) (echoOut, error) {
			return echoOut{Echo: in.Text}, nil
		})
	srv.AddTool(ferry.Tool{Name: "fail", Description: "Always fails with an error result.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return nil, errors.New("it failed")
		})
	srv.AddTool(ferry.Tool{Name: "confirm", Description: "Asks the user to confirm, then says what they chose.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?",
				RequestedSchema: []byte(`{"type":"object","properties":{"why":{"type":"string"}}}`)})
			if err != nil {
				return nil, err
			}
			return ferry.NewResult(ferry.Text(fmt.Sprintf("%s %v", res.Action, res.Content["why"]))), nil
		})
	srv.AddTool(ferry.Tool{Name: "summarize", Description: "Asks the client's model to summarize a text.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			res, err := ferry.CreateMessage(ctx, &ferry.CreateMessageParams{MaxTokens: 10,
				Messages: []ferry.PromptMessage{ferry.UserMessage(ferry.Text("summarize this"))}})
			if err != nil {
				return nil, err
			}
			text, _ := res.Content.(*ferry.TextContent)
			return ferry.NewResult(ferry.Text(res.Model + ": " + text.Text)), nil
		})
	srv.AddTool(ferry.Tool{Name: "big", Description: "Returns a text of a hundred kilobytes.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(strings.Repeat("x", 100<<10))), nil
		})
	srv.AddTool(ferry.Tool{Name: "roots", Description: "Lists the client's roots.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			roots, err := ferry.ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range roots {
				uris = append(uris, r.URI)
			}
			return ferry.NewResult(ferry.Text(strings.Join(uris, ","))), nil
		})
	srv.AddTool(ferry.Tool{Name: "steps", Description: "Reports progress twice, then finishes.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			for i := 1; i <= 2; i++ {
				if err := ferry.NotifyProgress(ctx, ferry.Progress{Progress: float64(i), Total: 2}); err != nil {
					return nil, err
				}
			}
			return ferry.NewResult(ferry.Text("done")), nil
		})
	srv.AddTool(ferry.Tool{Name: "wait", Description: "Waits until cancelled, and counts it.", ReadOnly: true},
		func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			waiting.Add(1)
			<-ctx.Done()
			cancelled.Add(1)
			return nil, ctx.Err()
		})
	srv.AddTool(ferry.Tool{Name: "waits", Description: "Says how many waits started and were cancelled.", ReadOnly: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text(fmt.Sprintf("%d/%d", waiting.Load(), cancelled.Load()))), nil
		})
	srv.AddPrompt(ferry.Prompt{Name: "greet", Description: "Greets someone by name.",
		Arguments: []ferry.PromptArgument{{Name: "name", Description: "Who to greet.", Required: true, Values: []string{"ada", "alan", "grace"}}}},
		func(_ context.Context, req *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
			return &ferry.PromptResult{Messages: []ferry.PromptMessage{ferry.UserMessage(ferry.Text("Hello, " + req.Arguments["name"]))}}, nil
		})
	srv.AddPromptTemplate(ferry.Prompt{Name: "plain", Description: "A prompt without arguments.", Template: "Say hi."})
	for _, n := range []string{"a", "b", "c"} {
		srv.AddResource(ferry.Resource{URI: "test://res/" + n, Name: "res-" + n, MIMEType: "text/plain"},
			func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
				return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "resource " + n}}, nil
			})
	}
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: "item " + req.Vars["id"]}}, nil
		})
	return srv
}
