package ferry_test

import (
	"strings"
	"testing"
	"time"
)

// An answer full of characters JSON may escape for HTML ("<", ">", "&")
// reaches the tool on another replica: relaying it does not inflate it
// sixfold past what the relay takes, which would both multiply what a
// client makes the replicas carry and lose the answer.
func TestRelayCarriesAnAnswerFullOfHTMLCharacters(t *testing.T) {
	rs := newReplicas(t, 2)
	id := initLegacy(t, rs.url[0], `{"elicitation":{}}`)
	call := openStream(t, "POST", rs.url[0], id, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	q := decode(t, call.next())
	if q["method"] != "elicitation/create" {
		t.Fatalf("first event: %v", q)
	}
	name := strings.Repeat("<", 3<<20) // within the 4 MiB body; 18 MiB escaped
	answer := `{"jsonrpc":"2.0","id":` + string(mustJSON(t, q["id"])) + `,"result":{"action":"accept","content":{"name":"` + name + `"}}}`
	if status, _, body := post(t, rs.url[1], "", id, answer); status != 202 {
		t.Fatalf("the answer posted to replica B: %d %s", status, body)
	}
	select {
	case got := <-rs.asked:
		if got != "accept "+name {
			t.Fatalf("the tool got %d bytes, want %d", len(got), len("accept "+name))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer relayed from replica B never reached the tool on A")
	}
}
