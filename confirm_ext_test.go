package ferry_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/schema"
)

// confirmServer is a server that confirms destructive calls, with a
// destructive tool, an additive one and one whose policy is to ask always;
// ran counts the runs of each.
func confirmServer(t *testing.T, opts *ferry.ServerOptions) (*ferry.Server, map[string]*atomic.Int64) {
	t.Helper()
	if opts == nil {
		opts = &ferry.ServerOptions{}
	}
	opts.Confirm = true
	srv := ferry.NewServer("confirm", "1", opts)
	ran := map[string]*atomic.Int64{"delete_note": {}, "add_note": {}, "rename_note": {}, "wipe": {}}
	run := func(name string) ferry.ToolHandler {
		return func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			ran[name].Add(1)
			return ferry.NewResult(ferry.Text(name + " done")), nil
		}
	}
	idSchema := schema.Object(schema.Required("id", schema.Integer("The note's id.")))
	srv.AddTool(ferry.Tool{Name: "delete_note", Title: "Delete note", Description: "Deletes a note for good.",
		ClosedWorld: true, InputSchema: idSchema}, run("delete_note"))
	srv.AddTool(ferry.Tool{Name: "add_note", Description: "Adds a note; changes nothing else.", Additive: true,
		ClosedWorld: true}, run("add_note"))
	srv.AddTool(ferry.Tool{Name: "rename_note", Description: "Renames a note, overwriting its title.", Additive: true,
		Idempotent: true, ClosedWorld: true, Confirm: ferry.ConfirmWrites,
		Summarize: func(_ context.Context, req *ferry.CallToolRequest) (string, error) {
			return "Overwrites the title of the note.", nil
		}}, run("rename_note"))
	srv.AddTool(ferry.Tool{Name: "wipe", Description: "Wipes every note, after the user said yes.", ClosedWorld: true,
		Confirm: ferry.ConfirmNever}, run("wipe"))
	return srv, ran
}

// answering is an elicitation handler that answers action and records the
// messages it was asked.
func answering(action string, asked *[]string) func(context.Context, *client.ElicitParams) (*client.ElicitResult, error) {
	return func(_ context.Context, p *client.ElicitParams) (*client.ElicitResult, error) {
		*asked = append(*asked, p.Message)
		return &client.ElicitResult{Action: action}, nil
	}
}

func resultText(res *client.ToolResult) string { return res.Text() }

// A destructive call runs only after the person accepts, in both eras;
// decline and cancel are refusals the model reads, and the tool does not
// run. Additive tools, and tools whose policy is never, do not ask.
func TestConfirmAnswers(t *testing.T) {
	for _, proto := range []string{client.Version20260728, "2025-11-25"} {
		for _, tt := range []struct {
			action string
			runs   int64
			want   string
		}{
			{"accept", 1, "delete_note done"},
			{"decline", 0, `declined: the user declined "Delete note" (delete_note); the tool did not run`},
			{"cancel", 0, `declined: the user cancelled the confirmation of "Delete note" (delete_note)`},
		} {
			t.Run(proto+"/"+tt.action, func(t *testing.T) {
				srv, ran := confirmServer(t, nil)
				var asked []string
				c := ferrytest.NewClient(t, srv, &ferrytest.Options{Protocol: proto, Elicit: answering(tt.action, &asked)})
				res := c.CallTool(t.Context(), "delete_note", map[string]any{"id": 42})
				if got := resultText(res); !strings.Contains(got, tt.want) || res.IsError != (tt.runs == 0) {
					t.Errorf("result %q (isError %v), want %q", got, res.IsError, tt.want)
				}
				if got := ran["delete_note"].Load(); got != tt.runs {
					t.Errorf("delete_note ran %d times, want %d", got, tt.runs)
				}
				want := "Allow \"Delete note\" (delete_note) to run?\nArguments: id=42\nIt may delete or overwrite data, and cannot be undone by this server."
				if len(asked) != 1 || asked[0] != want {
					t.Errorf("asked %q, want once %q", asked, want)
				}
				for _, name := range []string{"add_note", "wipe"} {
					if res := c.CallTool(t.Context(), name, map[string]any{}); res.IsError || ran[name].Load() != 1 {
						t.Errorf("%s: %v, ran %d", name, resultText(res), ran[name].Load())
					}
				}
				if len(asked) != 1 {
					t.Errorf("additive and never tools asked: %q", asked[1:])
				}
				c.CallTool(t.Context(), "rename_note", map[string]any{"id": 1})
				if len(asked) != 2 || !strings.HasSuffix(asked[1], "\nOverwrites the title of the note.") {
					t.Errorf("a ConfirmWrites tool with a summarizer asked %q", asked[1:])
				}
			})
		}
	}
}

// A client that cannot ask its user gets a refusal that says so, and the
// tool does not run: no elicitation capability (both eras), a stateless
// legacy session.
func TestConfirmClientCannotAsk(t *testing.T) {
	cases := []struct {
		name string
		opts ferrytest.Options
		want string
	}{
		{"modern, no capability", ferrytest.Options{}, "this client cannot ask its user (it did not declare the elicitation capability)"},
		{"legacy, no capability", ferrytest.Options{Protocol: "2025-11-25"}, "this client cannot ask its user"},
		{"legacy, stateless", ferrytest.Options{Protocol: "2025-11-25", HTTP: &ferry.HTTPOptions{},
			Elicit: answering("accept", new([]string))}, "a stateless session cannot ask the user anything"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			srv, ran := confirmServer(t, &ferry.ServerOptions{Logger: new(ferrytest.Buffer).Logger()})
			c := ferrytest.NewClient(t, srv, &tt.opts)
			res := c.CallTool(t.Context(), "delete_note", map[string]any{"id": 1})
			if got := resultText(res); !res.IsError || !strings.HasPrefix(got, "unavailable: ") || !strings.Contains(got, tt.want) {
				t.Errorf("result %q, want a refusal saying %q", got, tt.want)
			}
			if n := ran["delete_note"].Load(); n != 0 {
				t.Errorf("the tool ran %d times", n)
			}
		})
	}
}

// A legacy call whose person does not answer is refused once the
// confirmation's timeout passes, and the tool does not run.
func TestConfirmNoAnswer(t *testing.T) {
	srv, ran := confirmServer(t, &ferry.ServerOptions{Limits: ferry.Limits{ConfirmTimeout: 300 * time.Millisecond}})
	c := ferrytest.NewClient(t, srv, &ferrytest.Options{Protocol: "2025-11-25",
		Elicit: func(ctx context.Context, _ *client.ElicitParams) (*client.ElicitResult, error) {
			// The person answers too late: the client reads the call's
			// answer only once this returns.
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
			return &client.ElicitResult{Action: "accept"}, nil
		}})
	res := c.CallTool(t.Context(), "delete_note", map[string]any{"id": 1})
	if got := resultText(res); !strings.Contains(got, "did not answer the confirmation") || !strings.Contains(got, "within 300ms") {
		t.Errorf("result %q", got)
	}
	if n := ran["delete_note"].Load(); n != 0 {
		t.Errorf("the tool ran %d times", n)
	}
}

// Arguments the input schema refuses are refused without asking anyone.
func TestConfirmInvalidArgumentsAskNobody(t *testing.T) {
	srv, ran := confirmServer(t, nil)
	var asked []string
	c := ferrytest.NewClient(t, srv, &ferrytest.Options{Elicit: answering("accept", &asked)})
	res := c.CallTool(t.Context(), "delete_note", map[string]any{"id": "x"})
	if !res.IsError || len(asked) != 0 || ran["delete_note"].Load() != 0 {
		t.Errorf("result %q, asked %q", resultText(res), asked)
	}
}

// A summarizer's refusal is the call's answer, and nobody is asked.
func TestConfirmSummarizerRefuses(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Confirm: true})
	srv.AddTool(ferry.Tool{Name: "drop", Description: "Drops a thing for good.",
		Summarize: func(context.Context, *ferry.CallToolRequest) (string, error) {
			return "", ferry.NotFound("no such thing")
		}}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		t.Error("the tool ran")
		return nil, errors.New("ran")
	})
	var asked []string
	c := ferrytest.NewClient(t, srv, &ferrytest.Options{Elicit: answering("accept", &asked)})
	if res := c.CallTool(t.Context(), "drop", nil); resultText(res) != "not-found: no such thing" || len(asked) != 0 {
		t.Errorf("result %q, asked %q", resultText(res), asked)
	}
}

// confirmModernCall posts a 2026-07-28 tools/call of delete_note and returns its
// result, or its error.
func confirmModernCall(t *testing.T, url, user, args, extra string) (result, rpcErr map[string]any) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_note","arguments":` + args + extra +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`
	req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "delete_note")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if user != "" {
		req.Header.Set("X-User", user)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct{ Result, Error map[string]any }
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	return msg.Result, msg.Error
}

// In the 2026-07-28 era an approval counts only for the call it was asked
// for: a retry with other arguments, by another caller, with a forged or
// no request state, or with the answer sent before the question, asks
// again, and the tool does not run.
func TestConfirmApprovalIsBoundToTheCall(t *testing.T) {
	srv, ran := confirmServer(t, nil)
	h := ferry.NewHTTPHandler(srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user := r.Header.Get("X-User"); user != "" {
			r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: user}))
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	accept := `,"inputResponses":{"` + ferry.ConfirmKey + `":{"action":"accept"}}`
	first, e := confirmModernCall(t, ts.URL, "alice", `{"id":1}`, "")
	if e != nil || first["resultType"] != "input_required" {
		t.Fatalf("first call: %v %v", first, e)
	}
	if q, _ := first["inputRequests"].(map[string]any)[ferry.ConfirmKey].(map[string]any); q["method"] != "elicitation/create" {
		t.Fatalf("inputRequests = %v", first["inputRequests"])
	}
	state, _ := json.Marshal(first["requestState"])
	withState := accept + `,"requestState":` + string(state)
	asksAgain := []struct{ name, user, args, extra string }{
		{"an answer without the question", "alice", `{"id":1}`, accept},
		{"other arguments", "alice", `{"id":2}`, withState},
		{"the same arguments re-encoded as another number", "alice", `{"id":1.0}`, withState},
		{"another caller", "mallory", `{"id":1}`, withState},
		{"an anonymous caller", "", `{"id":1}`, withState},
		{"a forged state", "alice", `{"id":1}`, accept + `,"requestState":"x.y"`},
	}
	for _, tt := range asksAgain {
		res, e := confirmModernCall(t, ts.URL, tt.user, tt.args, tt.extra)
		if e != nil || res["resultType"] != "input_required" {
			t.Errorf("%s: result %v, error %v; want the question asked again", tt.name, res, e)
		}
	}
	if n := ran["delete_note"].Load(); n != 0 {
		t.Fatalf("the tool ran %d times before its own approval", n)
	}
	if res, e := confirmModernCall(t, ts.URL, "alice", ` { "id" : 1 } `, withState); e != nil || res["resultType"] != "complete" || res["isError"] == true {
		t.Errorf("the call's own approval: result %v, error %v", res, e)
	}
	if n := ran["delete_note"].Load(); n != 1 {
		t.Errorf("the tool ran %d times, want 1", n)
	}
}

// A task of a tool that confirms parks on the question before the tool
// runs, whatever answer its first call carried; tasks/update answers it,
// and a decline ends the task with the refusal, the tool not run.
func TestConfirmInATask(t *testing.T) {
	for _, tt := range []struct {
		action string
		runs   int64
		want   string
	}{
		{"decline", 0, "declined: the user declined wipe_all"},
		{"accept", 1, "wiped"},
	} {
		t.Run(tt.action, func(t *testing.T) {
			srv, h := newTaskServer(t, &ferry.TaskOptions{})
			var ran atomic.Int64
			srv.AddTool(ferry.Tool{Name: "wipe_all", Description: "Wipes every note, in the background.",
				TaskSupport: ferry.TaskOptional, Confirm: ferry.ConfirmAlways},
				func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
					ran.Add(1)
					return ferry.NewResult(ferry.Text("wiped")), nil
				})
			c := &taskClient{t: t, h: h, caps: tasksCaps}
			started := c.send("tools/call", "wipe_all",
				`"name":"wipe_all","arguments":{},"inputResponses":{"`+ferry.ConfirmKey+`":{"action":"accept"}}`)
			id := str(started.Result, "taskId")
			parked := c.waitStatus(id, "input_required")
			if !strings.Contains(string(parked.Result["inputRequests"]), ferry.ConfirmKey) || ran.Load() != 0 {
				t.Fatalf("the parked task asks %s; the tool ran %d times", parked.Result["inputRequests"], ran.Load())
			}
			if ack := c.task("tasks/update", id, `,"inputResponses":{"`+ferry.ConfirmKey+`":{"action":"`+tt.action+`"}}`); ack.Error != nil {
				t.Fatalf("tasks/update: %+v", ack.Error)
			}
			done := c.waitStatus(id, "completed")
			if !strings.Contains(string(done.Result["result"]), tt.want) || ran.Load() != tt.runs {
				t.Errorf("the task's result is %s; the tool ran %d times, want %d", done.Result["result"], ran.Load(), tt.runs)
			}
		})
	}
}
