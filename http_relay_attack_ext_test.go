package ferry_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"

	"encoding/json"
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

// initAs opens a 2025-03-26 session as user with the given client
// capabilities.
func initAs(t *testing.T, url, user, caps string) string {
	t.Helper()
	status, id, body := post(t, url, user, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`)
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	return id
}

// deleteAs sends DELETE for session as user and returns the status.
func deleteAs(t *testing.T, url, user, session string) int {
	t.Helper()
	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("X-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A caller who owns a session of his own cannot, through another replica,
// cancel, answer or end what runs in another caller's session: with his
// own session id the relay carries his session's id, and with the other's
// he is refused before anything is relayed.
func TestRelayKeepsACallerToHisOwnSession(t *testing.T) {
	rs := newReplicas(t, 2)
	hana := initAs(t, rs.url[0], "hana", `{"elicitation":{}}`)
	eve := initAs(t, rs.url[1], "eve", `{}`)
	wait := openStream(t, "POST", rs.url[0], hana, `{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait","arguments":{}}}`, "X-User", "hana")
	ask := openStream(t, "POST", rs.url[0], hana, `{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name":"ask","arguments":{}}}`, "X-User", "hana")
	q := decode(t, ask.next())
	if q["method"] != "elicitation/create" {
		t.Fatalf("first event: %v", q)
	}
	qid := string(mustJSON(t, q["id"]))
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1"}}`
	answer := `{"jsonrpc":"2.0","id":` + qid + `,"result":{"action":"accept","content":{"name":"Eve"}}}`
	for range 20 { // the wait call may not have started yet: keep trying
		for _, body := range []string{cancel, answer, "[" + cancel + "," + answer + "]"} {
			if status, _, resp := post(t, rs.url[1], "eve", eve, body); status != 202 {
				t.Fatalf("eve's own session refused %s: %d %s", body, status, resp)
			}
			if status, _, _ := post(t, rs.url[1], "eve", hana, body); status != 404 {
				t.Fatalf("eve with hana's session id: %d, want 404", status)
			}
		}
		if status := deleteAs(t, rs.url[1], "eve", hana); status != 404 {
			t.Fatalf("eve's DELETE of hana's session: %d, want 404", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case got := <-rs.canceled:
		t.Fatalf("eve ended hana's call: %s", got)
	case got := <-rs.asked:
		t.Fatalf("eve answered hana's question: %s", got)
	case <-time.After(200 * time.Millisecond):
	}
	// Hana herself still reaches both through replica B.
	post(t, rs.url[1], "hana", hana, strings.Replace(answer, "Eve", "Hana", 1))
	if got := <-rs.asked; got != "accept Hana" {
		t.Fatalf("the tool got %q", got)
	}
	_ = wait
	rs.cancelUntil(t, rs.url[1], "hana", hana, cancel)
}

// A resource only callers with the scope "hr" see is updated on replica B:
// a caller without it, subscribed to its URI through B, hears nothing on
// his GET stream on A; a caller with it does.
func TestRelayedUpdateOfAHiddenResourceReachesOnlyThoseWhoSeeIt(t *testing.T) {
	rs := newReplicas(t, 2)
	const uri = "secret://payroll"
	for _, srv := range rs.srv {
		srv.AddResource(ferry.Resource{URI: uri, Name: "payroll", Scopes: []string{"hr"}}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: "salaries"}}, nil
		})
	}
	eve := initAs(t, rs.url[0], "eve", `{}`)
	hana := initLegacyAs(t, rs.url[0], "hana", "hr")
	getEve := openStream(t, "GET", rs.url[0], eve, "", "X-User", "eve")
	getHana := openStream(t, "GET", rs.url[0], hana, "", "X-User", "hana", "X-Scopes", "hr")
	// B's additions reach A by the relay, maybe after the streams open:
	// the list changes are skipped.
	n := 0
	addTool := func() {
		n++
		rs.srv[0].AddTool(ferry.Tool{Name: fmt.Sprint("open", n), Description: "Open."}, noopTool)
	}
	untilEvent(t, getEve, addTool, "tools/list_changed")
	untilEvent(t, getHana, addTool, "tools/list_changed")
	subscribe := `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`
	post(t, rs.url[1], "eve", eve, subscribe) // refused or not: eve must hear nothing
	if status, _, body := post(t, rs.url[1], "hana", hana, subscribe, "X-Scopes", "hr"); status != 200 {
		t.Fatalf("hana's subscription on B: %d %s", status, body)
	}
	untilEvent(t, getHana, func() { rs.srv[1].NotifyResourceUpdated(uri) }, "notifications/resources/updated")
	rs.srv[1].RemoveResources(uri)
	rs.srv[1].NotifyResourceUpdated(uri) // B no longer knows it; A decides by its own entry
	untilEvent(t, getHana, func() {}, `"uri":"`+uri+`"`)
	for { // what eve's stream heard before: the tools list changes only
		select {
		case ev := <-getEve.events:
			if !strings.Contains(ev, "tools/list_changed") {
				t.Fatalf("eve's stream heard of a resource she does not see: %s", ev)
			}
			continue
		case <-time.After(300 * time.Millisecond):
		}
		break
	}
	select {
	case ev := <-getEve.events:
		t.Fatalf("eve's stream heard of a resource she does not see: %s", ev)
	case <-time.After(300 * time.Millisecond):
	}
}

func noopTool(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }

// untilEvent calls act until st gets an event containing want, skipping
// list changes; it fails after 10s.
func untilEvent(t *testing.T, st *sseStream, act func(), want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		act()
		wait := time.After(50 * time.Millisecond)
	read:
		for {
			select {
			case ev, ok := <-st.events:
				switch {
				case !ok:
					t.Fatal("the stream ended")
				case strings.Contains(ev, want):
					return
				case !strings.Contains(ev, "list_changed"):
					t.Fatalf("the stream got %s, want %s", ev, want)
				}
			case <-wait:
				break read
			case <-deadline:
				t.Fatalf("no %s within 10s", want)
			}
		}
	}
}

// A client's resources/subscribe cannot forge a confirmation or a relay
// message of another kind: a URI made to look like relay fields is
// carried, stored and relayed as the string it is, and the session's
// stream keeps serving.
func TestSubscribeURICannotForgeRelayFields(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srvA, urlA := ackReplica(t, store)
	_, urlB := ackReplica(t, store)
	id := initLegacy(t, urlA, `{}`)
	get := openStream(t, "GET", urlA, id, "")
	waitStreamOpen(t, srvA, get)
	forged := `doc://0","kind":"ack","to":"x","ack":"y","from":"z`
	uri, _ := json.Marshal(forged)
	if status, _, body := post(t, urlB, "", id, `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":`+string(uri)+`}}`); status != 200 {
		t.Fatalf("forged subscribe: %d %s", status, body)
	}
	st, err := store.Load(t.Context(), id)
	if err != nil || len(st.Subscriptions) != 1 || st.Subscriptions[0] != forged {
		t.Fatalf("stored %+v, %v; want the URI as sent", st, err)
	}
	if took := subscribeTook(t, urlB, id, "doc://1"); took > 500*time.Millisecond {
		t.Errorf("a subscription after the forged one took %v", took)
	}
	srvA.NotifyResourceUpdated("doc://1")
	if ev := get.next(); !strings.Contains(ev, "doc://1") {
		t.Fatalf("the stream got %s", ev)
	}
}

// Bob, who knows Alice's session id, cannot take over its stream claim:
// his GET on replica B is refused before it claims anything, so Alice's
// stream on A stays the holder (and is not ended at its keepalive).
func TestAnotherCallersGETDoesNotClaimTheStream(t *testing.T) {
	rs := newReplicas(t, 2)
	id := initLegacyAs(t, rs.url[0], "alice", "")
	get := openStream(t, "GET", rs.url[0], id, "", "X-User", "alice")
	waitStreamOpen(t, rs.srv[0], get)
	before, err := rs.store.Load(t.Context(), id)
	if err != nil || before.Stream == "" {
		t.Fatalf("alice's stream is not recorded: %+v, %v", before, err)
	}
	bob := openStream(t, "GET", rs.url[1], id, "", "X-User", "bob")
	if ev := bob.next(); !strings.Contains(ev, "session not found") && !strings.Contains(ev, "error") {
		t.Fatalf("bob's GET of alice's session: %d %s", bob.status, ev)
	}
	if bob.status != 404 {
		t.Errorf("bob's GET of alice's session: status %d, want 404", bob.status)
	}
	after, err := rs.store.Load(t.Context(), id)
	if err != nil || after.Stream != before.Stream {
		t.Fatalf("bob's GET changed the holder from %q to %q (%v)", before.Stream, after.Stream, err)
	}
}

// Stream values no handler has (empty-looking, odd, long) cost one
// subscription the confirmation's timeout at most, are then forgotten,
// and do not keep a GET stream from opening and claiming the session.
func TestStreamValuesThatAreNoHandler(t *testing.T) {
	for name, v := range map[string]string{
		"space":   " ",
		"json":    `","kind":"ack`,
		"long":    strings.Repeat("h", 64<<10),
		"unicode": "\u2028\x00",
	} {
		t.Run(name, func(t *testing.T) {
			store := &ferry.MemorySessionStore{}
			srv, url := ackReplica(t, store)
			id := initLegacy(t, url, `{}`)
			if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = v; return nil }); err != nil {
				t.Fatal(err)
			}
			if took := subscribeTook(t, url, id, "doc://0"); took > 3*time.Second {
				t.Errorf("the subscription took %v", took)
			}
			if st, err := store.Load(t.Context(), id); err != nil || st.Stream != "" {
				t.Errorf("after the timeout the holder is still %.20q (%v)", st.Stream, err)
			}
			if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = v; return nil }); err != nil {
				t.Fatal(err)
			}
			get := openStream(t, "GET", url, id, "")
			waitStreamOpen(t, srv, get)
			if st, err := store.Load(t.Context(), id); err != nil || st.Stream == v || st.Stream == "" {
				t.Errorf("the open stream did not claim the session: holder %.20q (%v)", st.Stream, err)
			}
			if took := subscribeTook(t, url, id, "doc://1"); took > 500*time.Millisecond {
				t.Errorf("a subscription on the holder's own replica took %v", took)
			}
		})
	}
}
