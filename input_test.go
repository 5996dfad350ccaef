package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A round's requestState keeps the answers the handler read and nothing
// else the client sent.
func TestRequestStateKeepsOnlyTheAnswersRead(t *testing.T) {
	s := NewServer("s", "1", nil)
	responses := json.RawMessage(`{"step1":{"action":"accept","content":{"name":"Ada"}},"junk":{"action":"accept"}}`)
	in, err := s.loadInput("tools/call", "multi", nil, responses, "")
	if err != nil {
		t.Fatal(err)
	}
	var res ElicitResult
	if err := in.ask("elicitation/create", "step1", &ElicitParams{Message: "Name?"}, &res); err != nil {
		t.Fatalf("step1: %v", err)
	}
	if err := in.ask("elicitation/create", "step2", &ElicitParams{Message: "Colour?"}, &res); !errors.Is(err, ErrInputRequired) {
		t.Fatalf("step2: %v; want ErrInputRequired", err)
	}
	b := s.appendInputRequired(nil, "tools/call", "multi", nil, in)
	var out struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(append(append([]byte("{"), b...), '}'), &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if _, ok := out.InputRequests["step2"]; !ok || len(out.InputRequests) != 1 {
		t.Errorf("inputRequests = %v; want step2 only", out.InputRequests)
	}
	payload, err := s.keys.verify("request-state", out.RequestState)
	if err != nil {
		t.Fatal(err)
	}
	var st savedState
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range st.Answers {
		keys = append(keys, k)
	}
	if diff := cmp.Diff([]string{"step1"}, keys); diff != "" {
		t.Errorf("saved answers (-want +got):\n%s", diff)
	}
}

// Questions are named by the handler's key, else q1, q2... in order.
func TestInputKeys(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want []string
	}{
		{"generated", []string{"", ""}, []string{"q1", "q2"}},
		{"named", []string{"user_name", "greeting"}, []string{"greeting", "user_name"}},
		{"mixed", []string{"user_name", ""}, []string{"q2", "user_name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &inputState{}
			for _, k := range tt.keys {
				var res ElicitResult
				if err := in.ask("elicitation/create", k, &ElicitParams{Message: "?"}, &res); !errors.Is(err, ErrInputRequired) {
					t.Fatalf("ask(%q) = %v", k, err)
				}
			}
			if diff := cmp.Diff(tt.want, sortedKeys(in.requests)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

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
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"My Region"}}}`)},
		func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil })
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `tool "route": property "region": x-mcp-header "My Region" is not a valid HTTP header name`) {
		t.Errorf("Check() = %v", err)
	}
}
