package route_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/google/go-cmp/cmp"
)

// request is the part of what the echo route saw that the argument rule
// decides.
type request struct {
	Method, Path, RawPath, RequestURI string
	Query                             map[string][]string
	Body                              string
	Values                            map[string]string
	IdempotencyKey                    string
	ContentType                       string
}

func TestArgumentsFillTheRequestByOneRule(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	tests := []struct {
		name, tool, args string
		want             request
	}{
		{
			name: "wildcard from the argument of its name, the rest in the query",
			tool: "get_order", args: `{"id":"A-1","expand":["lines","customer"],"active":true}`,
			want: request{Method: "GET", Path: "/orders/A-1", RequestURI: "/orders/A-1?expand=lines&expand=customer&active=true",
				Query: map[string][]string{"expand": {"lines", "customer"}, "active": {"true"}}, Values: map[string]string{"id": "A-1"}},
		},
		{
			name: "a wildcard's value is escaped as one segment",
			tool: "get_order", args: `{"id":"a/b c?d%e"}`,
			want: request{Method: "GET", Path: "/orders/a/b c?d%e", RawPath: "/orders/a%2Fb%20c%3Fd%25e",
				RequestURI: "/orders/a%2Fb%20c%3Fd%25e", Values: map[string]string{"id": "a/b c?d%e"}},
		},
		{
			name: "numbers travel as the JSON wrote them, null is left out",
			tool: "get_order", args: `{"id":"7","limit":1000000,"big":12345678901234567,"note":null}`,
			want: request{Method: "GET", Path: "/orders/7", RequestURI: "/orders/7?limit=1000000&big=12345678901234567",
				Query: map[string][]string{"limit": {"1000000"}, "big": {"12345678901234567"}}, Values: map[string]string{"id": "7"}},
		},
		{
			name: "a query value is escaped",
			tool: "get_order", args: `{"id":"1","expand":["a&b=c d","é"]}`,
			want: request{Method: "GET", Path: "/orders/1", RequestURI: "/orders/1?expand=a%26b%3Dc+d&expand=%C3%A9",
				Query: map[string][]string{"expand": {"a&b=c d", "é"}}, Values: map[string]string{"id": "1"}},
		},
		{
			name: "POST: the rest is the JSON body; tags move fields to a header and the query",
			tool: "cancel_order", args: `{"id":"9","reason":"duplicate","key":"k-1","notify":true,"items":[1,2]}`,
			want: request{Method: "POST", Path: "/orders/9/cancel", RequestURI: "/orders/9/cancel?notify=true",
				Query: map[string][]string{"notify": {"true"}}, Body: `{"reason":"duplicate","items":[1,2]}`,
				Values: map[string]string{"id": "9"}, IdempotencyKey: "k-1", ContentType: "application/json"},
		},
		{
			name: "POST with no arguments left sends an empty object",
			tool: "cancel_order", args: `{"id":"9","reason":""}`,
			want: request{Method: "POST", Path: "/orders/9/cancel", RequestURI: "/orders/9/cancel",
				Body: `{"reason":""}`, Values: map[string]string{"id": "9"}, ContentType: "application/json"},
		},
		{
			name: "an untyped tool's arguments are the body as sent",
			tool: "add_note", args: `{"text":"hi","tags":["a"]}`,
			want: request{Method: "POST", Path: "/notes", RequestURI: "/notes", Body: `{"text":"hi","tags":["a"]}`, ContentType: "application/json"},
		},
		{
			name: "an untyped tool with no arguments sends {}",
			tool: "add_note", args: `{}`,
			want: request{Method: "POST", Path: "/notes", RequestURI: "/notes", Body: `{}`, ContentType: "application/json"},
		},
		{
			name: "a rest wildcard keeps its slashes, each segment escaped",
			tool: "read_file", args: `{"path":"docs/a b/c.txt"}`,
			want: request{Method: "GET", Path: "/files/docs/a b/c.txt", RawPath: "/files/docs/a%20b/c.txt",
				RequestURI: "/files/docs/a%20b/c.txt", Values: map[string]string{"path": "docs/a b/c.txt"}},
		},
		{
			name: "DELETE puts the rest in the query",
			tool: "delete_order", args: `{"id":"x"}`,
			want: request{Method: "DELETE", Path: "/orders/x", RequestURI: "/orders/x", Values: map[string]string{"id": "x"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range eras {
				got := seenOf(t, m.call(t, e, tt.tool, tt.args))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: the route saw (-want +got):\n%s", e, diff)
				}
			}
		})
	}
}

// seenOf reads the echo route's answer from a result.
func seenOf(t *testing.T, r result) request {
	t.Helper()
	if r.IsError || r.RPCError != "" {
		t.Fatalf("call failed: %+v", r)
	}
	var s seen
	if err := json.Unmarshal(r.Structured, &s); err != nil {
		t.Fatalf("structured content %s: %v", r.Structured, err)
	}
	if strings.TrimSpace(r.Text) != string(r.Structured) {
		t.Errorf("text %s is not the structured content %s", r.Text, r.Structured)
	}
	first := func(k string) string {
		if v := s.Header[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	return request{Method: s.Method, Path: s.Path, RawPath: s.RawPath, RequestURI: s.RequestURI, Query: s.Query,
		Body: s.Body, Values: s.Values, IdempotencyKey: first("Idempotency-Key"), ContentType: first("Content-Type")}
}

func TestArgumentsThatCannotFillTheRouteAreRefusedBeforeServing(t *testing.T) {
	m := newMCPServer(t)
	testBinding(m, service(nil), nil)
	m.serve(t)
	tests := []struct {
		name, tool, args, want string
	}{
		{"missing wildcard", "replace_order", `{}`, "invalid arguments:\n- id: is required to fill the route's path"},
		{"null wildcard", "delete_order", `{"id":null}`, "invalid arguments:\n- id: is required to fill the route's path"},
		{"empty wildcard", "get_order", `{"id":""}`, "invalid arguments:\n- id: must not be empty: it fills a segment of the route's path"},
		{"dot-dot wildcard", "get_order", `{"id":".."}`, "invalid arguments:\n- id: must not be \".\" or \"..\": it fills a segment of the route's path"},
		{"dot-dot in a rest wildcard", "read_file", `{"path":"a/../b"}`,
			"invalid arguments:\n- path: must be segments separated by \"/\", none of them empty, \".\" or \"..\""},
		{"empty segment in a rest wildcard", "read_file", `{"path":"a//b"}`,
			"invalid arguments:\n- path: must be segments separated by \"/\", none of them empty, \".\" or \"..\""},
		{"header with a line break", "cancel_order", `{"id":"1","reason":"r","key":"a\r\nX-Admin: yes"}`,
			"invalid arguments:\n- key: must not hold control characters: it goes in a header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range eras {
				got := m.call(t, e, tt.tool, tt.args)
				if !got.IsError || got.Text != tt.want {
					t.Errorf("%s: got %+v, want the error %q", e, got, tt.want)
				}
			}
		})
	}
}

func TestEveryArgumentThatCannotFillTheRouteIsListed(t *testing.T) {
	m := newMCPServer(t)
	b := testBinding(m, service(nil), nil)
	b.AddTool(ferry.Tool{Name: "loose_order", Description: "Fetches an order, loosely.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}, "GET /orders/{id}")
	m.serve(t)
	got := m.call(t, modern, "loose_order", `{"id":{"a":1},"filter":{"b":2},"tags":[[1]]}`)
	want := "invalid arguments:\n" +
		"- filter: must not be an object: it goes in the query string\n" +
		"- tags: must be a list of strings, numbers or booleans: it goes in the query string\n" +
		"- id: must be a string, a number or a boolean to fill the route's path"
	if !got.IsError || got.Text != want {
		t.Errorf("got %q, want %q", got.Text, want)
	}
}
