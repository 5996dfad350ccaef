package main

import (
	"strings"
	"testing"
)

// ferry prompts with a prompt's name after TARGET points at ferry prompt.
func TestPromptsWithAName(t *testing.T) {
	code, _, stderr := runFerry(t, []string{"prompts", "http://127.0.0.1:1/mcp", "summarize_order"})
	if code != exitUsage || !strings.Contains(stderr, `unexpected argument "summarize_order" after TARGET; to get a prompt: ferry prompt TARGET NAME`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
