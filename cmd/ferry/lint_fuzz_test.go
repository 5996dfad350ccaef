package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Whatever a server lists, lint does not panic and every problem is one
// line ending in a known rule's id.
func FuzzLintListing(f *testing.F) {
	for _, seed := range []string{
		`{"name":"get order","description":"Gets an order.","inputSchema":{"type":"object"}}`,
		`{"name":"x","inputSchema":{"type":"object","properties":{"q":{"$ref":"#/$defs/q"}},"required":["q","z"]},"outputSchema":true}`,
		`{"name":"evil\nname","annotations":{"readOnlyHint":"yes"},"inputSchema":{"items":[{"pattern":"(("}]}}`,
		`{"uri":"a://{x","uriTemplate":"{}","name":"","arguments":[{"name":""},{"name":"a"},{"name":"a"}]}`,
		`[]`, `null`, `7`,
	} {
		f.Add(seed)
	}
	ids := map[string]bool{}
	for _, r := range lintRules {
		ids[r.id] = true
	}
	f.Fuzz(func(t *testing.T, item string) {
		raw := json.RawMessage(item)
		items := []json.RawMessage{raw, raw}
		for _, p := range lintListing(listing{tools: items, prompts: items, resources: items, templates: items}) {
			line := p.String()
			if strings.ContainsAny(line, "\n\r") {
				t.Errorf("problem is not one line: %q", line)
			}
			if !ids[p.rule] || !strings.HasSuffix(line, " ["+p.rule+"]") {
				t.Errorf("problem %q has no known rule id", line)
			}
		}
	})
}
