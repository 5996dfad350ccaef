package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
)

// ferry resources lists the resources and the resource templates, every
// page, as the server sent them, in each era.
func TestResources(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for era, target := range eras(t, url) {
		t.Run(era, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, withTarget("resources", target))
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var got struct {
				Resources []struct {
					URI, Name string
				} `json:"resources"`
				ResourceTemplates []struct {
					URITemplate string `json:"uriTemplate"`
					MimeType    string `json:"mimeType"`
				} `json:"resourceTemplates"`
			}
			decodeStdout(t, stdout, &got)
			if len(got.Resources) != 1 || got.Resources[0].URI != "shop://catalog" || got.Resources[0].Name != "catalog" {
				t.Errorf("resources %+v", got.Resources)
			}
			if len(got.ResourceTemplates) != 1 || got.ResourceTemplates[0].URITemplate != "shop://orders/{id}" || got.ResourceTemplates[0].MimeType != "application/json" {
				t.Errorf("templates %+v", got.ResourceTemplates)
			}
		})
	}
}

// A server without resources lists none: both lists are empty, not an
// error.
func TestResourcesNone(t *testing.T) {
	url := httpServer(t, toolsOnlyServer(), nil)
	code, stdout, stderr := runFerry(t, []string{"resources", url})
	if code != exitOK || stdout != "{\n  \"resources\": [],\n  \"resourceTemplates\": []\n}\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// ferry prompt gets one prompt with its arguments, from the command line
// or stdin, in each era.
func TestPrompt(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for era, target := range eras(t, url) {
		t.Run(era, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, withTarget("prompt", target, "summarize_order", `{"id": "7"}`))
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var got struct {
				Description string `json:"description"`
				Messages    []struct {
					Role    string `json:"role"`
					Content struct{ Type, Text string }
				} `json:"messages"`
			}
			decodeStdout(t, stdout, &got)
			want := []struct {
				Role    string `json:"role"`
				Content struct{ Type, Text string }
			}{{Role: "user", Content: struct{ Type, Text string }{"text", "Summarize order 7 in two sentences."}}}
			if diff := cmp.Diff(want, got.Messages); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
	code, stdout, stderr := runFerryIn(t, `{"id": "8"}`, []string{"prompt", url, "summarize_order", "-"})
	if code != exitOK || !strings.Contains(stdout, "Summarize order 8") {
		t.Errorf("stdin: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// A prompt's arguments are strings: anything else is a usage error found
// before connecting, one line saying how to write them; a prompt the
// server refuses is exit 3 with a hint to list the prompts.
func TestPromptRefusals(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	tests := []struct {
		args  []string
		code  int
		want  string
		usage bool // the usage follows the problem
	}{
		{[]string{"prompt", url, "summarize_order", `{"id": 7}`}, exitUsage,
			`ferry: prompt: the JSON argument's "id" is 7, not a string; prompt arguments are strings: write {"id": "7"}`, false},
		{[]string{"prompt", url, "summarize_order", `["7"]`}, exitUsage, "ferry: prompt: the JSON argument is JSON array, not an object", false},
		{[]string{"prompt", url}, exitUsage, "ferry: prompt: want NAME and at most one JSON argument after TARGET, have 0 arguments", true},
		{[]string{"prompt", url, "summarize_order"}, exitProtocol, `argument "id" is required; check the prompt's name and arguments with "ferry prompts"`, false},
		{[]string{"prompt", url, "no_such_prompt"}, exitProtocol, `unknown prompt "no_such_prompt"; check the prompt's name and arguments with "ferry prompts"`, false},
	}
	for _, tt := range tests {
		code, stdout, stderr := runFerry(t, tt.args)
		if code != tt.code || stdout != "" || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "usage:") != tt.usage {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and %q", tt.args[2:], code, stdout, stderr, tt.code, tt.want)
		}
	}
}

// ferry prompts with a prompt's name after TARGET points at ferry prompt.
func TestPromptsWithAName(t *testing.T) {
	code, _, stderr := runFerry(t, []string{"prompts", "http://127.0.0.1:1/mcp", "summarize_order"})
	if code != exitUsage || !strings.Contains(stderr, `unexpected argument "summarize_order" after TARGET; to get a prompt: ferry prompt TARGET NAME`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A resource the server does not have sends the user to the command that
// lists resources, in both eras; an unknown tool to ferry tools.
func TestReadUnknownResourceHint(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for _, args := range [][]string{
		{"read", url, "shop://nothing"},
		{"read", "-protocol", "2025-11-25", url, "shop://nothing"},
	} {
		code, _, stderr := runFerry(t, args)
		if code != exitProtocol || !strings.HasSuffix(stderr, `; check the URI against "ferry resources" (its resources and templates)`+"\n") {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, _, stderr := runFerry(t, []string{"call", url, "no_such_tool"})
	if code != exitProtocol || !strings.HasSuffix(stderr, `; check the tool's name and arguments with "ferry tools"`+"\n") {
		t.Errorf("call: exit %d, stderr %q", code, stderr)
	}
}

// toolsOnlyServer is a server with one tool and nothing else.
func toolsOnlyServer() *ferry.Server {
	srv := ferry.NewServer("tools-only", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "ping", Description: "Answers pong, to check the server runs.", ReadOnly: true},
		func(context.Context, struct{}) (string, error) { return "pong", nil })
	return srv
}
