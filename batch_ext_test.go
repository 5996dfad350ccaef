package ferry_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// batchServer serves "ask", which elicits a name, and "slow", which runs
// until its context ends and then reports that on ended.
func batchServer(t *testing.T) (url string, started, ended chan string) {
	t.Helper()
	started, ended = make(chan string, 4), make(chan string, 4)
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks the user's name."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Your name?",
			RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		name, _ := res.Content["name"].(string)
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("hello " + name)}}, nil
	})
	srv.AddTool(ferry.Tool{Name: "slow", Description: "Runs until cancelled."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		started <- "slow"
		select {
		case <-ctx.Done():
			ended <- ctx.Err().Error()
			return nil, ctx.Err()
		case <-time.After(15 * time.Second):
			ended <- "not cancelled"
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("done")}}, nil
		}
	})
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL, started, ended
}

// A tools/call inside a 2025-03-26 batch of a stateful session asks the
// client (elicitation/create goes out on the batch's stream) and gets the
// answer the client POSTs.
func TestBatchToolCallElicits(t *testing.T) {
	url, _, _ := batchServer(t)
	sess := initLegacy(t, url, `{"elicitation":{}}`)
	st := openStream(t, "POST", url, sess, `[{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
	q := decode(t, st.next())
	if q["method"] != "elicitation/create" {
		t.Fatalf("first event: %v, want an elicitation/create request", q)
	}
	id := strings.TrimSpace(string(mustJSON(t, q["id"])))
	status, _, body := post(t, url, "", sess, `{"jsonrpc":"2.0","id":`+id+`,"result":{"action":"accept","content":{"name":"Ada"}}}`)
	if status != 202 {
		t.Fatalf("the answer: %d %s", status, body)
	}
	answer := st.next()
	if !strings.HasPrefix(answer, "[") || !strings.Contains(answer, `"id":7`) || !strings.Contains(answer, "hello Ada") {
		t.Fatalf("the batch's answer: %s", answer)
	}
	st.ended()
}

// A tools/call inside a batch is cancelled by notifications/cancelled
// sent in another POST, and one running in its own POST is cancelled by a
// notifications/cancelled inside a batch.
func TestBatchCancellation(t *testing.T) {
	url, started, ended := batchServer(t)
	sess := initLegacy(t, url, `{}`)

	st := openStream(t, "POST", url, sess, `[{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"slow","arguments":{}}}]`)
	<-started
	post(t, url, "", sess, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b1"}}`)
	select {
	case got := <-ended:
		if got != context.Canceled.Error() {
			t.Fatalf("the call in the batch ended with %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in the batch was not cancelled")
	}
	if answer := st.next(); !strings.Contains(answer, `"id":"b1"`) || !strings.Contains(answer, "cancel") {
		t.Fatalf("the batch's answer: %s", answer)
	}

	single := openStream(t, "POST", url, sess, `{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-started
	status, _, body := post(t, url, "", sess, `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}},{"jsonrpc":"2.0","id":9,"method":"ping"}]`)
	if status != 200 || !strings.Contains(body, `"id":9`) {
		t.Fatalf("the batch: %d %s", status, body)
	}
	select {
	case got := <-ended:
		if got != context.Canceled.Error() {
			t.Fatalf("the call ended with %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled by the batch's notification")
	}
	single.next()
}

// Over stdio as over HTTP, a batch over the item limit is refused whole,
// before any of it is served, and one at the limit is served.
func TestStdioBatchOverTheItemLimitIsRefusedWhole(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	batch := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"ping"}`
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	in := `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n" +
		batch(ferry.DefaultMaxBatchItems+1) + "\n" + batch(ferry.DefaultMaxBatchItems) + "\n"
	var out strings.Builder
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d answers, want 3: %.300s", len(lines), out.String())
	}
	if want := "the batch has 101 messages; at most 100 are served"; !strings.Contains(lines[1], want) || strings.HasPrefix(lines[1], "[") {
		t.Errorf("the batch over the limit got %.200s, want one error saying %q", lines[1], want)
	}
	var answers []json.RawMessage
	if err := json.Unmarshal([]byte(lines[2]), &answers); err != nil || len(answers) != ferry.DefaultMaxBatchItems {
		t.Errorf("the batch at the limit got %d answers (%v), want %d", len(answers), err, ferry.DefaultMaxBatchItems)
	}
}
