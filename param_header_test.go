package ferry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHeaderMatches(t *testing.T) {
	tests := []struct {
		header, arg string
		want        bool
	}{
		{"eu-west", `"eu-west"`, true},
		{"eu-west", `"us-east"`, false},
		{"3", `3`, true},
		{"3.0", `3`, true},
		{"three", `3`, false},
		{"true", `true`, true},
		{"True", `true`, false},
		{"[1]", `[1]`, false},
	}
	for _, tt := range tests {
		if got := headerMatches(tt.header, json.RawMessage(tt.arg)); got != tt.want {
			t.Errorf("headerMatches(%q, %s) = %v, want %v", tt.header, tt.arg, got, tt.want)
		}
	}
}

func TestParamHeadersFromTheWireSchema(t *testing.T) {
	tests := []struct {
		name       string
		properties string
		want       []paramHeader
		problem    string
	}{
		{"none", `"region":{"type":"string"}`, nil, ""},
		{"two", `"region":{"type":"string","x-mcp-header":"Region"},"note":{"type":"string"},"priority":{"type":"integer","x-mcp-header":"Priority"}`,
			[]paramHeader{{Arg: "priority", Header: "Priority"}, {Arg: "region", Header: "Region"}}, ""},
		{"not a token", `"region":{"type":"string","x-mcp-header":"My Region"}`, nil, "is not a valid HTTP header name"},
		{"twice", `"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"region"}`,
			[]paramHeader{{Arg: "a", Header: "Region"}}, "both use x-mcp-header"},
		{"not primitive", `"tags":{"type":"array","x-mcp-header":"Tags"}`, nil, "needs a string, number, integer or boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wire := []byte(`{"name":"route","inputSchema":{"type":"object","properties":{` + tt.properties + `}}}`)
			got, problems := paramHeaders(wire)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.problem == "" && len(problems) > 0 || tt.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0], tt.problem)) {
				t.Errorf("problems = %q; want one saying %q", problems, tt.problem)
			}
		})
	}
}

func TestCheckReportsABadParamHeader(t *testing.T) {
	s := NewServer("s", "1", nil)
	s.AddTool(Tool{Name: "route", Description: "Routes.",
		RawInputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"My Region"}}}`)},
		func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `tool "route": property "region": x-mcp-header "My Region" is not a valid HTTP header name`) {
		t.Errorf("Check() = %v", err)
	}
}
