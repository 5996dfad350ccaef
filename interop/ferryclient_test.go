package interop

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ferry-mcp/ferry/client"
)

type sdkGreetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type sdkGreetOut struct {
	Greeting string `json:"greeting"`
}

// newSDKServer builds a server with the official Go SDK: a typed tool, a
// tool that elicits, a prompt and a resource. versions, if not empty,
// narrows the protocol versions it speaks. The elicitation is asked as the
// era asks it: directly in the legacy one, as input_required in the modern
// one (modern set).
func newSDKServer(versions []string, modern bool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "go-sdk-server", Version: "1.8.0"},
		&mcp.ServerOptions{SupportedProtocolVersions: versions, Instructions: "Served by the Go SDK."})
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone by name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in sdkGreetIn) (*mcp.CallToolResult, sdkGreetOut, error) {
			return nil, sdkGreetOut{Greeting: "Hello, " + in.Name}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "confirm", Description: "Asks the user to confirm."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			ask := &mcp.ElicitParams{Message: "Sure?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"why": map[string]any{"type": "string"}}}}
			var res *mcp.ElicitResult
			switch answer, _ := req.Params.InputResponses["sure"].(*mcp.ElicitResult); {
			case modern && answer == nil:
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sure": ask}, RequestState: "asked"}, nil, nil
			case modern:
				if req.Params.RequestState != "asked" {
					return nil, nil, errors.New("the retry lost the request state")
				}
				res = answer
			default:
				var err error
				if res, err = req.Session.Elicit(ctx, ask); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + res.Content["why"].(string)}}}, nil, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "welcome", Description: "Welcomes a user.", Arguments: []*mcp.PromptArgument{{Name: "user", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Welcome, " + req.Params.Arguments["user"]}}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: "sdk://motd", Name: "motd", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "all good"}}}, nil
		})
	return srv
}

// Ferry's client works against a server that is not Ferry's: the official
// Go SDK's, over Streamable HTTP, in the legacy era (forced, and reached by
// falling back from server/discover when the server speaks only legacy
// versions), with the server's elicitation answered on the call's stream;
// and in the modern era, which the SDK serves without sessions, with the
// elicitation answered by retrying an input_required result.
func TestFerryClientAgainstGoSDKServer(t *testing.T) {
	legacyOnly := []string{v20251125, v20250618, v20250326}
	cases := []struct {
		name     string
		versions []string
		protocol string
		want     string
		// stateless serves the Go SDK without sessions, the way it serves
		// the modern era (its stateful handler cannot).
		stateless bool
	}{
		{"fallback", legacyOnly, "", v20251125, false},
		{"forced 2025-11-25", nil, v20251125, v20251125, false},
		{"forced 2025-06-18", nil, v20250618, v20250618, false},
		{"forced 2025-03-26", nil, v20250326, v20250326, false},
		{"modern", nil, "", modernVersion, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSDKServer(tc.versions, tc.stateless)
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
				&mcp.StreamableHTTPOptions{Stateless: tc.stateless}))
			defer ts.Close()
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()
			c, err := client.DialHTTP(ctx, ts.URL, &client.Options{
				Protocol: tc.protocol,
				Elicit: func(_ context.Context, req *client.ElicitParams) (*client.ElicitResult, error) {
					if req.Message != "Sure?" {
						return nil, errors.New("unexpected question")
					}
					return &client.ElicitResult{Action: "accept", Content: map[string]any{"why": "tested"}}, nil
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Protocol() != tc.want || c.Modern() != (tc.want == modernVersion) {
				t.Fatalf("Protocol() = %q, want %s", c.Protocol(), tc.want)
			}
			if info := c.ServerInfo(); info.Name != "go-sdk-server" || info.Instructions != "Served by the Go SDK." {
				t.Errorf("ServerInfo() = %+v", info)
			}
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
				if !strings.Contains(string(tl.Raw), `"inputSchema"`) {
					t.Errorf("tool %s Raw = %s", tl.Name, tl.Raw)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"confirm", "greet"}) {
				t.Errorf("tools = %v", names)
			}
			res, err := c.CallTool(ctx, "greet", map[string]string{"name": "ada"})
			if err != nil || res.IsError || string(res.StructuredContent) != `{"greeting":"Hello, ada"}` {
				t.Errorf("greet = %+v, %v", res, err)
			}
			if res, err := c.CallTool(ctx, "confirm", nil); err != nil || res.Text() != "accept tested" {
				t.Errorf("confirm = %+v, %v; want the elicited answer", res, err)
			}
			if _, err := c.CallTool(ctx, "nope", nil); !isRPCError(err) {
				t.Errorf("unknown tool: err = %v, want a JSON-RPC error", err)
			}
			if p, err := c.GetPrompt(ctx, "welcome", map[string]string{"user": "alan"}); err != nil || p.Messages[0].Content.Text != "Welcome, alan" {
				t.Errorf("welcome = %+v, %v", p, err)
			}
			if r, err := c.ReadResource(ctx, "sdk://motd"); err != nil || r.Contents[0].Text != "all good" {
				t.Errorf("read = %+v, %v", r, err)
			}
			if err := c.Ping(ctx); err != nil {
				t.Errorf("ping: %v", err)
			}
		})
	}
}

func isRPCError(err error) bool {
	_, ok := errors.AsType[*client.Error](err)
	return ok
}
