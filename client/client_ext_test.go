package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// dialer connects a client to newTestServer one way.
type dialer struct {
	name string
	dial func(t *testing.T, opts *client.Options, sopts *ferry.ServerOptions, hopts *ferry.HTTPOptions) (*client.Client, error)
}

func dialers() []dialer {
	return []dialer{
		{"handler", func(t *testing.T, opts *client.Options, sopts *ferry.ServerOptions, hopts *ferry.HTTPOptions) (*client.Client, error) {
			return client.DialHandler(t.Context(), ferry.NewHTTPHandler(newTestServer(sopts), hopts), opts)
		}},
		{"socket", func(t *testing.T, opts *client.Options, sopts *ferry.ServerOptions, hopts *ferry.HTTPOptions) (*client.Client, error) {
			ts := httptest.NewServer(ferry.NewHTTPHandler(newTestServer(sopts), hopts))
			t.Cleanup(ts.Close)
			return client.DialHTTP(t.Context(), ts.URL, opts)
		}},
		{"stdio", func(t *testing.T, opts *client.Options, sopts *ferry.ServerOptions, _ *ferry.HTTPOptions) (*client.Client, error) {
			versions := "all"
			if sopts != nil && len(sopts.ProtocolVersions) > 0 {
				versions = strings.Join(sopts.ProtocolVersions, ",")
			}
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), stdioEnv+"="+versions)
			cmd.Stderr = os.Stderr
			return client.DialCommand(t.Context(), cmd, opts)
		}},
	}
}

// eras are the protocols every transport is tested in.
var eras = []struct{ name, protocol, want string }{
	{"auto", "", client.Version20260728},
	{"modern", client.Version20260728, client.Version20260728},
	{"2025-11-25", client.Version20251125, client.Version20251125},
	{"2025-06-18", client.Version20250618, client.Version20250618},
	{"2025-03-26", client.Version20250326, client.Version20250326},
}

func connect(t *testing.T, d dialer, opts *client.Options, sopts *ferry.ServerOptions, hopts *ferry.HTTPOptions) *client.Client {
	t.Helper()
	c, err := d.dial(t, opts, sopts, hopts)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return c
}

// answers are the client's answers to the server's questions.
func answers(protocol string) *client.Options {
	return &client.Options{
		Protocol: protocol,
		Elicit: func(_ context.Context, req *client.ElicitParams) (*client.ElicitResult, error) {
			if req.Message != "Sure?" || !strings.Contains(string(req.RequestedSchema), "why") {
				return nil, errors.New("unexpected question " + req.Message)
			}
			return &client.ElicitResult{Action: "accept", Content: map[string]any{"why": "tested"}}, nil
		},
		CreateMessage: func(_ context.Context, req *client.CreateMessageParams) (*client.CreateMessageResult, error) {
			if len(req.Messages) != 1 || req.Messages[0].Content.Text != "summarize this" {
				return nil, errors.New("unexpected sampling request " + string(req.Raw))
			}
			return &client.CreateMessageResult{Role: client.RoleAssistant, Content: client.Text("short"), Model: "m1"}, nil
		},
	}
}

// Every method works over every transport in every era, against a Ferry
// server, with lists read across pages (the server's page size is 2).
func TestClientEveryTransportAndEra(t *testing.T) {
	for _, d := range dialers() {
		for _, era := range eras {
			t.Run(d.name+"/"+era.name, func(t *testing.T) {
				t.Parallel()
				hopts := &ferry.HTTPOptions{Stateful: true}
				c := connect(t, d, answers(era.protocol), &ferry.ServerOptions{PageSize: 2}, hopts)
				ctx := t.Context()
				if c.Protocol() != era.want {
					t.Fatalf("Protocol() = %q, want %q", c.Protocol(), era.want)
				}
				info := c.ServerInfo()
				if info.Name != "client-test" || info.Version != "1.2.3" || info.Instructions != "Test fixtures." || len(info.Capabilities) == 0 {
					t.Errorf("ServerInfo() = %+v", info)
				}
				tools, err := c.ListTools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tl := range tools {
					names = append(names, tl.Name)
					if !json.Valid(tl.Raw) || !strings.Contains(string(tl.Raw), `"name":"`+tl.Name+`"`) {
						t.Errorf("tool %s Raw = %s", tl.Name, tl.Raw)
					}
				}
				if diff := cmp.Diff([]string{"big", "confirm", "echo", "fail", "roots", "steps", "summarize", "wait", "waits"}, names); diff != "" {
					t.Errorf("tools (-want +got):\n%s", diff)
				}
				if tools[2].Annotations == nil || tools[2].Annotations.ReadOnlyHint == nil || !*tools[2].Annotations.ReadOnlyHint {
					t.Errorf("echo annotations = %+v", tools[2].Annotations)
				}
				res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError || string(res.StructuredContent) != `{"echo":"hi"}` {
					t.Errorf("echo = %s", res.Raw)
				}
				if res, err := c.CallTool(ctx, "fail", nil); err != nil || !res.IsError {
					t.Errorf("fail = %+v, %v; want an error result", res, err)
				}
				if res, err := c.CallTool(ctx, "confirm", nil); err != nil || res.Text() != "accept tested" {
					t.Errorf("confirm = %+v, %v; want the elicited answer", res, err)
				}
				if res, err := c.CallTool(ctx, "summarize", nil); err != nil || res.Text() != "m1: short" {
					t.Errorf("summarize = %+v, %v; want the sampled answer", res, err)
				}
				_, err = c.CallTool(ctx, "nope", nil)
				if re, ok := errors.AsType[*client.Error](err); !ok || re.Code != ferry.CodeInvalidParams {
					t.Errorf("unknown tool: err = %v, want an Error -32602", err)
				}
				prompts, err := c.ListPrompts(ctx)
				if err != nil || len(prompts) != 2 {
					t.Fatalf("prompts = %+v, %v", prompts, err)
				}
				pr, err := c.GetPrompt(ctx, "greet", map[string]string{"name": "ada"})
				if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.Text != "Hello, ada" {
					t.Errorf("greet = %+v, %v", pr, err)
				}
				resources, err := c.ListResources(ctx)
				if err != nil || len(resources) != 3 {
					t.Fatalf("resources = %+v, %v", resources, err)
				}
				templates, err := c.ListResourceTemplates(ctx)
				if err != nil || len(templates) != 1 || templates[0].URITemplate != "test://items/{id}" {
					t.Errorf("templates = %+v, %v", templates, err)
				}
				rr, err := c.ReadResource(ctx, "test://items/7")
				if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "item 7" {
					t.Errorf("read = %+v, %v", rr, err)
				}
				comp, err := c.Complete(ctx, &client.CompleteRequest{RefType: "ref/prompt", Name: "greet", Argument: "name", Value: "a"})
				if err != nil || !cmp.Equal(comp.Values, []string{"ada", "alan"}) {
					t.Errorf("complete = %+v, %v", comp, err)
				}
				if err := c.Ping(ctx); err != nil {
					t.Errorf("ping: %v", err)
				}
			})
		}
	}
}

var _ = http.StatusOK
