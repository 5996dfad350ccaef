package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
