package protomcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestTheProtoPromptRendersBesideAHandWrittenOne(t *testing.T) {
	s := testShop(t)
	m := newMCPServer()
	m.srv.AddPromptTemplate(ferry.Prompt{Name: "returns_help", Description: "Helps with a return.", Template: "Help with returns."})
	if err := addShop(m, s); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	data := m.rpc(t, "prompts/list", "", `{`+modernMeta+`}`)
	var list struct {
		Result struct {
			Prompts []struct {
				Name      string
				Arguments []struct {
					Name, Description string
					Required          bool
				}
			}
		}
	}
	if err := json.Unmarshal(data, &list); err != nil || len(list.Result.Prompts) != 2 {
		t.Fatalf("prompts/list answered %s", data)
	}
	for _, p := range list.Result.Prompts {
		if p.Name == "order_help" {
			if len(p.Arguments) != 2 || p.Arguments[0].Name != "customer" || !p.Arguments[0].Required || p.Arguments[0].Description != "The customer's name." || p.Arguments[1].Required {
				t.Errorf("arguments %+v", p.Arguments)
			}
		}
	}
	data = m.rpc(t, "prompts/get", "order_help", `{"name":"order_help","arguments":{"customer":"Ada","sku":"BOOK-1"},`+modernMeta+`}`)
	want := "Help Ada order the item BOOK-1.\n\nTool preference: the customer names an item"
	if !strings.Contains(string(data), strings.ReplaceAll(want, "\n", `\n`)) {
		t.Errorf("prompts/get answered %s, want the text %q", data, want)
	}
	data = m.rpc(t, "prompts/get", "order_help", `{"name":"order_help","arguments":{"sku":"BOOK-1","size":"L"},`+modernMeta+`}`)
	if !strings.Contains(string(data), `"code":-32602`) || !strings.Contains(string(data), `argument \"customer\" is required`) || !strings.Contains(string(data), `has no argument \"size\"`) {
		t.Errorf("prompts/get without a required argument answered %s", data)
	}
}
