package ferry_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

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
