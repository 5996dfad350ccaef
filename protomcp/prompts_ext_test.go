package protomcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

func TestTheProtoPromptRendersBesideAHandWrittenOne(t *testing.T) {
	s := testShop(t)
	m := newMCPServer()
	m.srv.AddPromptTemplate(ferry.Prompt{Name: "returns_help", Description: "Helps with a return.", Template: "Help with returns."})
	if err := addShop(m, s); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	prompts := m.client.ListPrompts(t.Context())
	if len(prompts) != 2 {
		t.Fatalf("prompts/list answered %+v", prompts)
	}
	for _, p := range prompts {
		if p.Name == "order_help" {
			if len(p.Arguments) != 2 || p.Arguments[0].Name != "customer" || !p.Arguments[0].Required || p.Arguments[0].Description != "The customer's name." || p.Arguments[1].Required {
				t.Errorf("arguments %+v", p.Arguments)
			}
		}
	}
	res := m.client.GetPrompt(t.Context(), "order_help", map[string]string{"customer": "Ada", "sku": "BOOK-1"})
	want := "Help Ada order the item BOOK-1.\n\nTool preference: the customer names an item"
	if !strings.Contains(string(res.Raw), strings.ReplaceAll(want, "\n", `\n`)) {
		t.Errorf("prompts/get answered %s, want the text %q", res.Raw, want)
	}
	_, err := m.client.Raw().GetPrompt(t.Context(), "order_help", map[string]string{"sku": "BOOK-1", "size": "L"})
	if msg := fmt.Sprint(err); !strings.Contains(msg, "-32602") || !strings.Contains(msg, `argument "customer" is required`) || !strings.Contains(msg, `has no argument "size"`) {
		t.Errorf("prompts/get without a required argument answered %v", err)
	}
}
