package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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

func TestPromptsAndRead(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for era, target := range eras(t, url) {
		t.Run(era, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, withTarget("prompts", target))
			if code != exitOK || stderr != "" {
				t.Fatalf("prompts: exit %d, stderr %q", code, stderr)
			}
			var ps struct {
				Prompts []struct {
					Name      string `json:"name"`
					Arguments []struct {
						Name string `json:"name"`
					} `json:"arguments"`
				} `json:"prompts"`
			}
			decodeStdout(t, stdout, &ps)
			if len(ps.Prompts) != 1 || ps.Prompts[0].Name != "summarize_order" || len(ps.Prompts[0].Arguments) != 1 {
				t.Errorf("prompts %+v", ps)
			}
			code, stdout, stderr = runFerry(t, withTarget("read", target, "shop://catalog"))
			if code != exitOK || stderr != "" {
				t.Fatalf("read: exit %d, stderr %q", code, stderr)
			}
			var rr struct {
				Contents []struct{ URI, Text string } `json:"contents"`
			}
			decodeStdout(t, stdout, &rr)
			want := []struct{ URI, Text string }{{"shop://catalog", "kettle, teapot"}}
			if diff := cmp.Diff(want, rr.Contents); diff != "" {
				t.Errorf("contents (-want +got):\n%s", diff)
			}
		})
	}
}
