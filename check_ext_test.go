package ferry_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// A tool with a problem added once the server serves is not added, and
// the problem is logged at Error level with the tool named; Check, which
// speaks of start-up, stays clean.
func TestToolWithProblemAddedWhileServingIsLoggedNotAdded(t *testing.T) {
	srv, logs := newLogged(t, nil)
	noop := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }
	srv.AddTool(ferry.Tool{Name: "good", Description: "A tool."}, noop)
	ferry.NewHTTPHandler(srv, nil) // serving starts
	srv.AddTool(ferry.Tool{Name: "order items", Description: "Built from a table name."}, noop)
	srv.AddTool(ferry.Tool{Name: "good", Description: "Again."}, noop)
	ferry.AddTool(srv, ferry.Tool{Name: "badtag", Description: "A typed tool."}, func(context.Context, struct {
		N int `json:"n" minLength:"3"`
	}) (string, error) {
		return "", nil
	})
	recs := logs.records(t, "tool not added: a problem found after serving started")
	recs = append(recs, logs.records(t, "registration problem found after serving started")...)
	for _, want := range []string{`"order items"`, `"good" is registered twice`, `"badtag"`} {
		found := false
		for _, r := range recs {
			found = found || (r["level"] == "ERROR" && strings.Contains(r["problem"].(string), want))
		}
		if !found {
			t.Errorf("no Error record names %s; log:\n%s", want, logs.buf.String())
		}
	}
	if recs := logs.records(t, "tool not added: a problem found after serving started"); len(recs) == 0 || recs[0]["tool"] != "order items" {
		t.Errorf("the record does not carry the tool's name as an attribute: %v", recs)
	}
	if err := srv.Check(); err != nil {
		t.Errorf("Check() = %v after serving started; want nil", err)
	}
	names := []string{}
	for _, info := range srv.Catalog().Tools() {
		names = append(names, info.Name)
	}
	if strings.Join(names, ",") != "good" {
		t.Errorf("tools = %v; want only good", names)
	}
	if res := call(t, srv, "good", `{}`); res["isError"] == true {
		t.Errorf("the first good was replaced: %v", res)
	}
}

// A stateless legacy session cannot carry a tool's question to the client:
// the log says what would help.
func TestStatelessElicitationLogsWhatItNeeds(t *testing.T) {
	srv, logs := newLogged(t, nil)
	srv.AddTool(ferry.Tool{Name: "confirm", Description: "Asks first."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		if _, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?"}); err != nil {
			return nil, err
		}
		return ferry.NewResult(ferry.Text("done")), nil
	})
	hs := httptest.NewServer(ferry.NewHTTPHandler(srv, nil))
	defer hs.Close()
	ts := hs.URL
	_, session, _ := post(t, ts, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}}}}`)
	_, _, body := post(t, ts, "", session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`,
		"Mcp-Protocol-Version", "2025-11-25")
	if !strings.Contains(body, "unavailable:") {
		t.Fatalf("answer %s; want an unavailable refusal", body)
	}
	recs := logs.records(t, "tool could not ask the client")
	if len(recs) != 1 || recs[0]["tool"] != "confirm" || !strings.Contains(recs[0]["hint"].(string), "HTTPOptions.Stateful") ||
		!strings.Contains(recs[0]["hint"].(string), "2026-07-28") {
		t.Errorf("records = %v; want one naming confirm with a hint of HTTPOptions.Stateful and 2026-07-28", recs)
	}
}

// Without a Logger, a masked failure's reference leads to slog.Default, not
// nowhere; the Info record of every call does not go there.
func TestNilLoggerLogsToSlogDefault(t *testing.T) {
	logs := &logRecords{}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&logs.buf, nil)))
	defer slog.SetDefault(old)
	srv := ferry.NewServer("s", "1", nil)
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		panic("bug")
	})
	m := refRE.FindStringSubmatch(text(call(t, srv, "t", `{}`)))
	if m == nil {
		t.Fatal("the result has no ref")
	}
	fails := logs.records(t, "tool failed unexpectedly")
	if !slices.ContainsFunc(fails, func(r map[string]any) bool { return r["ref"] == m[1] }) {
		t.Errorf("slog.Default received %v; want the failure with the ref the model got, %s", fails, m[1])
	}
	srv.AddTool(ferry.Tool{Name: "ok", Description: "A tool.", ReadOnly: true}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		return ferry.NewResult(ferry.Text("fine")), nil
	})
	call(t, srv, "ok", `{}`)
	if got := logs.records(t, "tool call"); len(got) != 0 {
		t.Errorf("slog.Default received the call log %v; want only Warn and up", got)
	}
}

// A prompt with a problem added once the server serves is treated as a
// tool is: not added, and logged with the prompt named.
func TestPromptWithProblemAddedWhileServingIsLoggedNotAdded(t *testing.T) {
	srv, logs := newLogged(t, nil)
	srv.AddPromptTemplate(ferry.Prompt{Name: "review", Description: "Reviews.", Template: "Review this."})
	ferry.NewHTTPHandler(srv, nil) // serving starts
	srv.AddPromptTemplate(ferry.Prompt{Name: "REVIEW", Description: "Again, in capitals.", Template: "Review that."})
	srv.AddPromptTemplate(ferry.Prompt{Name: "nodesc", Template: "Hello {{name}}."})
	recs := logs.records(t, "prompt not added: a problem found after serving started")
	named := map[any]bool{}
	for _, r := range recs {
		if r["level"] != "ERROR" {
			t.Errorf("record at %v: %v", r["level"], r)
		}
		named[r["prompt"]] = true
	}
	if !named["REVIEW"] || !named["nodesc"] {
		t.Errorf("records %v do not name both prompts; log:\n%s", recs, logs.buf.String())
	}
	if err := srv.Check(); err != nil {
		t.Errorf("Check() = %v after serving started; want nil", err)
	}
}

func TestAddCheckFailsStartUp(t *testing.T) {
	srv := ferry.NewServer("t", "1", nil)
	calls := 0
	srv.AddCheck(func() error {
		calls++
		return errors.New(`tool "cancel_order": route "POST /orders/{id}/cancel" does not exist`)
	})
	err := srv.Check()
	if err == nil || !strings.Contains(err.Error(), "cancel_order") {
		t.Fatalf("Check() = %v, want the check's problem", err)
	}
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(""), Writer: io.Discard}); err == nil {
		t.Fatal("Run served a server whose check fails")
	}
	if calls != 2 {
		t.Fatalf("the check ran %d times, want once per Check and once per Run", calls)
	}
}
