package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// issueState returns the requestState an input_required result carries for
// a tools/call of name with args.
func issueState(t *testing.T, s *Server, name, args string) string {
	t.Helper()
	in := &inputState{answers: map[string]json.RawMessage{}}
	if err := in.ask("elicitation/create", "", map[string]string{"message": "sure?"}, new(map[string]any)); !errors.Is(err, ErrInputRequired) {
		t.Fatalf("ask = %v, want ErrInputRequired", err)
	}
	b := s.appendInputRequests([]byte{'{'}, "tools/call", name, json.RawMessage(args), in)
	var res struct {
		RequestState string `json:"requestState"`
	}
	if err := json.Unmarshal(append(b, '}'), &res); err != nil || res.RequestState == "" {
		t.Fatalf("input_required members %s: %v", b, err)
	}
	return res.RequestState
}

func TestRequestStateIsBoundToTheExactArguments(t *testing.T) {
	t.Parallel()
	const issued = `{"id":9007199254740993,"note":"a"}`
	tests := []struct {
		name   string
		key    string
		args   string
		accept bool
	}{
		{"the same bytes", "pay", issued, true},
		{"re-encoded: spacing, key order and escapes", "pay", "{ \"note\" : \"\\u0061\",\n \"id\": 9007199254740993 }", true},
		{"the neighbouring integer above 2^53", "pay", `{"id":9007199254740992,"note":"a"}`, false},
		{"the same value written as a float", "pay", `{"id":9.007199254740993e15,"note":"a"}`, false},
		{"another string", "pay", `{"id":9007199254740993,"note":"b"}`, false},
		{"another tool", "refund", issued, false},
	}
	s := NewServer("t", "1", nil)
	state := issueState(t, s, "pay", issued)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.loadInput(new(inputState), "tools/call", tt.key, json.RawMessage(tt.args), nil, state)
			if got := err == nil; got != tt.accept {
				t.Errorf("loadInput(%s, %s) = %v, want accepted %v", tt.key, tt.args, err, tt.accept)
			}
		})
	}
}

func TestCanonicalJSONKeepsNumberText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"b":1,"a":[9007199254740993, 1.50, -0]}`, `{"a":[9007199254740993,1.50,-0],"b":1}`},
		{` "x" `, `"x"`},
		{`not json`, `not json`},
	}
	for _, tt := range tests {
		if got := string(canonicalJSON(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("canonicalJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// Request state keys never collide across names and callers: the parts are
// length-prefixed, so that NUL in a name cannot forge a subject, and a
// subject of one issuer is not the same subject of another.
func TestStateKeyIsUnambiguous(t *testing.T) {
	anon := context.Background()
	as := func(subject string) context.Context {
		return WithPrincipal(context.Background(), &Principal{Subject: subject})
	}
	of := func(issuer, subject string) context.Context {
		return WithPrincipal(context.Background(), &Principal{Issuer: issuer, Subject: subject})
	}
	keys := []struct {
		name string
		ctx  context.Context
		key  string
	}{
		{"x, anonymous", anon, "x"},
		{"x, alice", as("alice"), "x"},
		{"x NUL alice, anonymous", anon, "x\x00alice"},
		{"x NUL, alice", as("alice"), "x\x00"},
		{"x NUL p alice, anonymous", anon, "\x00\x01xpalice"},
		{"x, empty subject", as(""), "x"},
		{"xa, lice", as("lice"), "xa"},
		{"NUL x, anonymous", anon, "\x00x"},
		{"x, alice of api-key", of("api-key", "alice"), "x"},
		{"x, alice of https://idp", of("https://idp", "alice"), "x"},
		{"x, api-keyalice of empty", of("", "api-keyalice"), "x"},
		{"x, keyalice of api-", of("api-", "keyalice"), "x"},
	}
	seen := map[string]string{}
	for _, k := range keys {
		got := stateKey(k.ctx, k.key)
		if other, dup := seen[got]; dup {
			t.Errorf("%s and %s share the state key %q", other, k.name, got)
		}
		seen[got] = k.name
	}
	if got := stateKey(anon, "x"); got != "x" {
		t.Errorf("anonymous key = %q; want the name itself (no allocation on the common path)", got)
	}
}

// A round's requestState keeps the answers the handler read and nothing
// else the client sent.
func TestRequestStateKeepsOnlyTheAnswersRead(t *testing.T) {
	s := NewServer("s", "1", nil)
	responses := json.RawMessage(`{"step1":{"action":"accept","content":{"name":"Ada"}},"junk":{"action":"accept"}}`)
	in, err := s.loadInput(new(inputState), "tools/call", "multi", nil, responses, "")
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
	b := s.appendInputRequests(nil, "tools/call", "multi", nil, in)
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

// A key names one question: asking a second question under it, or under a
// key shaped like the generated ones, fails instead of overwriting.
func TestInputKeysNameOneQuestionEach(t *testing.T) {
	in := new(inputState)
	if err := in.ask("elicitation/create", "confirm", map[string]string{}, new(ElicitResult)); !errors.Is(err, ErrInputRequired) {
		t.Fatalf("first ask: %v", err)
	}
	if err := in.ask("sampling/createMessage", "confirm", map[string]string{}, new(CreateMessageResult)); err == nil || !strings.Contains(err.Error(), `"confirm" names two questions`) {
		t.Errorf("second ask under the same key: %v", err)
	}
	if err := in.ask("roots/list", "q7", nil, new(map[string]any)); err == nil || !strings.Contains(err.Error(), "generated names") {
		t.Errorf("a generated-looking key: %v", err)
	}
	if err := in.ask("roots/list", "", nil, new(map[string]any)); !errors.Is(err, ErrInputRequired) {
		t.Errorf("an unnamed ask: %v", err)
	}
	if len(in.requests) != 2 {
		t.Errorf("requests = %v; want confirm and one generated name", in.requests)
	}
}
