package client

import (
	"strings"
	"testing"
)

// TestTextLinear pins that ToolResult.Text joins the blocks in one growing
// buffer: a server may send hundreds of thousands of tiny text blocks in
// one bounded message, and concatenating them one by one copies the text
// so far for each block (quadratic time).
func TestTextLinear(t *testing.T) {
	const n = 2000
	r := &ToolResult{Content: make([]Content, n)}
	for i := range r.Content {
		r.Content[i] = Text("x")
	}
	r.Content[1] = Content{Type: "image"}
	var got string
	allocs := testing.AllocsPerRun(5, func() { got = r.Text() })
	if want := strings.Repeat("x\n", n-2) + "x"; got != want {
		t.Fatalf("Text() = %q..., want %d lines of x", got[:min(len(got), 20)], n-1)
	}
	if allocs > 40 {
		t.Errorf("Text() of %d blocks made %v allocations, want a few (one growing buffer)", n, allocs)
	}
	mixed := &ToolResult{Content: []Content{Text(""), Text("a"), {Type: "image"}, Text(""), Text("b")}}
	if got := mixed.Text(); got != "a\n\nb" {
		t.Errorf("Text() = %q, want %q", got, "a\n\nb")
	}
}
