package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/ferry-mcp/ferry"
	weatherv1 "github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1connect"
	"github.com/ferry-mcp/ferry/examples/weather/gen/weather/v1/weatherv1ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

const adaKey = "k-ada"

// testApp is the example served over HTTP, with its audit log captured.
type testApp struct {
	url  string
	logs *ferrytest.Buffer
}

func newTestApp(t *testing.T) *testApp {
	t.Helper()
	logs := new(ferrytest.Buffer)
	h, err := NewHandler(newWeather(), map[string]bool{adaKey: true}, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return &testApp{url: ts.URL, logs: logs}
}

func newWeather() *Weather {
	return &Weather{Now: func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }}
}

// result is a tools/call result as a client reads it.
type result struct {
	Text       string
	Structured json.RawMessage
	IsError    bool
}

// client connects to /mcp with ferrytest's client, in the 2026-07-28
// era, sending the header pairs with every request.
func (a *testApp) client(t *testing.T, header ...string) *ferrytest.Client {
	t.Helper()
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return ferrytest.DialHTTP(t, a.url+"/mcp", &ferrytest.Options{Header: h})
}

// call calls tool with args (a JSON object); a protocol error fails the
// test.
func (a *testApp) call(t *testing.T, tool, args string, header ...string) result {
	t.Helper()
	res := a.client(t, header...).CallTool(t.Context(), tool, json.RawMessage(args))
	out := result{Structured: res.StructuredContent, IsError: res.IsError}
	for _, c := range res.Content {
		out.Text += c.Text
	}
	return out
}

// audited returns the audit records (procedure, tool, code) logged so far.
func (a *testApp) audited(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, rec := range a.logs.Records(t, "call") {
		procedure, _ := rec["procedure"].(string)
		tool, _ := rec["tool"].(string)
		code, _ := rec["code"].(string)
		out = append(out, procedure+" tool="+tool+" "+code)
	}
	return out
}

func TestToolsAnswerAsTheConnectAPIDoes(t *testing.T) {
	a := newTestApp(t)
	got := a.call(t, "get_forecast", `{"city":"Lisbon","days":2}`)
	if got.IsError {
		t.Fatalf("get_forecast: %+v", got)
	}
	client := weatherv1connect.NewWeatherServiceClient(http.DefaultClient, a.url)
	resp, err := client.GetForecast(t.Context(), connect.NewRequest(&weatherv1.GetForecastRequest{City: "Lisbon", Days: 2}))
	if err != nil {
		t.Fatal(err)
	}
	var fromTool weatherv1.GetForecastResponse
	if err := protojson.Unmarshal(got.Structured, &fromTool); err != nil {
		t.Fatalf("structured content %s: %v", got.Structured, err)
	}
	if !bytes.Equal(bytes.TrimSpace([]byte(got.Text)), bytes.TrimSpace(got.Structured)) {
		t.Errorf("text %s is not the structured content %s", got.Text, got.Structured)
	}
	if diff := cmp.Diff(protojson.Format(resp.Msg), protojson.Format(&fromTool)); diff != "" {
		t.Errorf("the tool and the Connect API differ (-api +tool):\n%s", diff)
	}
	if len(fromTool.GetDays()) != 2 || fromTool.GetDays()[0].GetDate() != "2026-12-01" {
		t.Errorf("forecast %v", &fromTool)
	}
	want := []string{
		"/weather.v1.WeatherService/GetForecast tool=get_forecast ok",
		"/weather.v1.WeatherService/GetForecast tool= ok",
	}
	if diff := cmp.Diff(want, a.audited(t)); diff != "" {
		t.Errorf("the interceptor saw (-want +got):\n%s", diff)
	}
}

func TestTheInterceptorDecidesForToolCalls(t *testing.T) {
	a := newTestApp(t)
	args := `{"city":"Oslo","email":"ada@example.com","belowC":-10}`
	refused := a.call(t, "set_alert", args)
	if !refused.IsError || !strings.Contains(refused.Text, "setting alerts needs an API key") || !strings.HasPrefix(refused.Text, "forbidden") {
		t.Errorf("set_alert without a key: %+v", refused)
	}
	allowed := a.call(t, "set_alert", args, "Authorization", "Bearer "+adaKey)
	if allowed.IsError || string(allowed.Structured) != `{"alertId":"alert-1"}` {
		t.Errorf("set_alert with a key: %+v", allowed)
	}
	want := []string{
		"/weather.v1.WeatherService/SetAlert tool=set_alert permission_denied",
		"/weather.v1.WeatherService/SetAlert tool=set_alert ok",
	}
	if diff := cmp.Diff(want, a.audited(t)); diff != "" {
		t.Errorf("the interceptor saw (-want +got):\n%s", diff)
	}
}

func TestBadArgumentsNeverReachTheService(t *testing.T) {
	a := newTestApp(t)
	for _, tt := range []struct{ args, want string }{
		{`{"city":"Lisbon","days":9}`, "days"},
		{`{"city":""}`, "city"},
		{`{"city":"Lisbon","weeks":1}`, "weeks"},
		// A CEL rule, with no schema keyword: protovalidate refuses it.
		{`{"city":"Lisbon2"}`, "city: a city name has no digits"},
	} {
		got := a.call(t, "get_forecast", tt.args)
		if !got.IsError || !strings.Contains(got.Text, tt.want) {
			t.Errorf("get_forecast %s: %+v, want a refusal naming %s", tt.args, got, tt.want)
		}
	}
	bad := a.call(t, "set_alert", `{"city":"Oslo","email":"not an address"}`, "Authorization", "Bearer "+adaKey)
	if !bad.IsError || !strings.Contains(bad.Text, "email") {
		t.Errorf("set_alert with a bad email: %+v", bad)
	}
	if got := a.audited(t); len(got) != 0 {
		t.Errorf("the service saw refused calls: %v", got)
	}
}

func TestAConnectErrorIsARefusal(t *testing.T) {
	a := newTestApp(t)
	got := a.call(t, "get_forecast", `{"city":"Atlantis"}`)
	if !got.IsError || !strings.Contains(got.Text, "no forecast for Atlantis: the city is not on the map") || !strings.HasPrefix(got.Text, "not-found") {
		t.Errorf("get_forecast Atlantis: %+v", got)
	}
}

func TestToolsAndPromptsFromTheProto(t *testing.T) {
	a := newTestApp(t)
	c := a.client(t)
	got := map[string]map[string]any{}
	titles := map[string]string{}
	for _, listed := range c.ListTools(t.Context()) {
		var tool struct {
			Name        string
			Title       string
			Annotations map[string]any
		}
		if err := json.Unmarshal(listed.Raw, &tool); err != nil {
			t.Fatal(err)
		}
		got[tool.Name] = tool.Annotations
		titles[tool.Name] = tool.Title
	}
	if diff := cmp.Diff(map[string]string{"get_forecast": "Get forecast", "set_alert": "Set a cold alert"}, titles); diff != "" {
		t.Errorf("titles (-want +got):\n%s", diff)
	}
	want := map[string]map[string]any{
		"get_forecast": {"readOnlyHint": true, "idempotentHint": true},
		"set_alert":    {"readOnlyHint": false, "idempotentHint": true, "destructiveHint": true},
	}
	for name, hints := range want {
		for k, v := range hints {
			if got[name][k] != v {
				t.Errorf("%s: %s = %v, want %v (annotations %v)", name, k, got[name][k], v, got[name])
			}
		}
	}
	if _, ok := got["watch_forecast"]; ok || len(got) != 2 {
		t.Errorf("tools %v; the streaming method must have none", got)
	}
	prompt := c.GetPrompt(t.Context(), "plan_outing", map[string]string{"city": "Bergen", "activity": "a hike"})
	if len(prompt.Messages) != 1 {
		t.Fatalf("prompts/get: %s", prompt.Raw)
	}
	wantText := "I want to go on a hike in Bergen this week. Pick the best day and say what to wear.\n\nTool preference: Use get_forecast for the weather rather than guessing it."
	if prompt.Messages[0].Content.Text != wantText {
		t.Errorf("prompt text %q, want %q", prompt.Messages[0].Content.Text, wantText)
	}
	result, err := c.Raw().GetPrompt(t.Context(), "plan_outing", map[string]string{"city": "Bergen"})
	if result != nil || !strings.Contains(fmt.Sprint(err), "-32602") || !strings.Contains(fmt.Sprint(err), "activity") {
		t.Errorf("plan_outing without its required activity: result %+v, error %v", result, err)
	}
}

// TestTheDirectAdapterSkipsTheHandler serves the tools with the generated
// direct adapter instead: the implementation answers, no interceptor runs.
func TestTheDirectAdapterSkipsTheHandler(t *testing.T) {
	srv := ferry.NewServer("weather", "1.0.0", nil)
	if err := weatherv1ferry.AddWeatherServiceTools(srv, weatherv1ferry.WeatherServiceDirect(newWeather()), nil); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	t.Cleanup(ts.Close)
	a := &testApp{url: ts.URL, logs: new(ferrytest.Buffer)}
	direct := a.call(t, "get_forecast", `{"city":"Lisbon","days":2}`)
	viaHandler := newTestApp(t).call(t, "get_forecast", `{"city":"Lisbon","days":2}`)
	if direct.IsError || string(direct.Structured) != string(viaHandler.Structured) {
		t.Errorf("direct %+v, through the handler %+v", direct, viaHandler)
	}
	if got := a.call(t, "set_alert", `{"city":"Oslo","email":"ada@example.com"}`); got.IsError {
		t.Errorf("set_alert, with no interceptor to refuse it: %+v", got)
	}
}
