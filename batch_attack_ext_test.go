package ferry_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// answerElicitation reads the next event of st, which must be an
// elicitation/create, and returns its id as JSON.
func elicitationID(t *testing.T, st *sseStream) string {
	t.Helper()
	q := decode(t, st.next())
	if q["method"] != "elicitation/create" {
		t.Fatalf("event %v, want an elicitation/create", q)
	}
	return strings.TrimSpace(string(mustJSON(t, q["id"])))
}

func accept(name string) string {
	return `"result":{"action":"accept","content":{"name":"` + name + `"}}`
}

// A batch answered after a ping and two items that each elicit: the
// answer switches to SSE at the first question, each question is asked in
// turn, one answer comes inside another batch, and the final event is the
// array of all three answers.
func TestBatchItemsEliciting(t *testing.T) {
	url, _, _ := batchServer(t)
	sess := initLegacy(t, url, `{"elicitation":{}}`)
	st := openStream(t, "POST", url, sess, `[{"jsonrpc":"2.0","id":1,"method":"ping"},`+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}},`+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
	q1 := elicitationID(t, st)
	if st.status != http.StatusOK {
		t.Fatalf("status %d", st.status)
	}
	if status, _, body := post(t, url, "", sess, `{"jsonrpc":"2.0","id":`+q1+`,`+accept("Ada")+`}`); status != 202 {
		t.Fatalf("the first answer: %d %s", status, body)
	}
	q2 := elicitationID(t, st)
	// The second answer inside a batch, with a request of its own.
	status, _, body := post(t, url, "", sess, `[{"jsonrpc":"2.0","id":`+q2+`,`+accept("Bob")+`},{"jsonrpc":"2.0","id":"p","method":"ping"}]`)
	if status != 200 || !strings.Contains(body, `"id":"p"`) {
		t.Fatalf("the batch carrying the second answer: %d %s", status, body)
	}
	final := st.next()
	for _, want := range []string{`"id":1`, `"id":2`, `hello Ada`, `"id":3`, `hello Bob`} {
		if !strings.HasPrefix(final, "[") || !strings.Contains(final, want) {
			t.Fatalf("the batch's answer lacks %s: %s", want, final)
		}
	}
	st.ended()
}

// Two batches of one session elicit at once and are answered in the
// other order: each answer reaches its own question.
func TestConcurrentBatchesElicit(t *testing.T) {
	url, _, _ := batchServer(t)
	sess := initLegacy(t, url, `{"elicitation":{}}`)
	a := openStream(t, "POST", url, sess, `[{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
	qa := elicitationID(t, a)
	b := openStream(t, "POST", url, sess, `[{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
	qb := elicitationID(t, b)
	if qa == qb {
		t.Fatalf("both questions have id %s", qa)
	}
	post(t, url, "", sess, `{"jsonrpc":"2.0","id":`+qb+`,`+accept("Bea")+`}`)
	if ans := b.next(); !strings.Contains(ans, `"id":"b"`) || !strings.Contains(ans, "hello Bea") {
		t.Fatalf("batch b: %s", ans)
	}
	post(t, url, "", sess, `{"jsonrpc":"2.0","id":`+qa+`,`+accept("Al")+`}`)
	if ans := a.next(); !strings.Contains(ans, `"id":"a"`) || !strings.Contains(ans, "hello Al") {
		t.Fatalf("batch a: %s", ans)
	}
}

// A batch item that elicits for a client that accepts only JSON (no SSE
// to ask on) gets a clear answer at once instead of waiting.
func TestBatchElicitWithoutSSE(t *testing.T) {
	url, _, _ := batchServer(t)
	sess := initLegacy(t, url, `{"elicitation":{}}`)
	req, _ := http.NewRequest("POST", url, strings.NewReader(`[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask","arguments":{}}}]`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Session-Id", sess)
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := readBody(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, `"id":5`) || !strings.Contains(body, "isError") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// DELETE of the session while a batch item waits for the client's answer
// ends the wait: the batch is answered.
func TestBatchEndsWhenTheSessionIsDeleted(t *testing.T) {
	url, _, _ := batchServer(t)
	sess := initLegacy(t, url, `{"elicitation":{}}`)
	st := openStream(t, "POST", url, sess, `[{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
	elicitationID(t, st)
	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set("Mcp-Session-Id", sess)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ans := st.next()
	if !strings.Contains(ans, `"id":"x"`) {
		t.Fatalf("the batch's answer: %s", ans)
	}
	st.ended()
}

// The batch limits hold in a stateful session too.
func TestStatefulBatchLimits(t *testing.T) {
	url, _, _ := batchServer(t)
	sess := initLegacy(t, url, `{}`)
	items := make([]string, ferry.DefaultMaxBatchItems+1)
	for i := range items {
		items[i] = `{"jsonrpc":"2.0","id":` + strings.Repeat("1", 1+i%5) + `,"method":"ping"}`
	}
	status, _, body := post(t, url, "", sess, "["+strings.Join(items, ",")+"]")
	if !strings.Contains(body, "at most") || strings.Contains(body, `"result"`) {
		t.Fatalf("a batch over the limit: %d %s", status, body)
	}
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
