package ferry_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// ackReplica is one stateful handler on a shared relaying store, serving
// the resources doc://0 … doc://9.
func ackReplica(t *testing.T, store ferry.SessionStore) (*ferry.Server, string) {
	t.Helper()
	rs := startReplicas(t, 1, store, true)
	return rs.srv[0], rs.url[0]
}

// subscribeTook subscribes session id to uri on url and returns how long
// the answer took.
func subscribeTook(t *testing.T, url, id, uri string) time.Duration {
	start := time.Now()
	status, _, body := post(t, url, "", id, `{"jsonrpc":"2.0","id":"s-`+uri+`","method":"resources/subscribe","params":{"uri":"`+uri+`"}}`)
	if status != 200 || !strings.Contains(body, `"result":{}`) {
		t.Errorf("subscribe %s: %d %s", uri, status, body)
	}
	return time.Since(start)
}

// Subscriptions a client takes at once, while the replica named as its
// stream's holder is gone, each wait for the confirmation at the same
// time, not one after the other: five cost one timeout, not five.
func TestSubscriptionsWaitingForAGoneHolderDoNotQueue(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	_, url := ackReplica(t, store)
	id := initLegacy(t, url, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() { subscribeTook(t, url, id, fmt.Sprintf("doc://%d", i)) })
	}
	wg.Wait()
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("five subscriptions at once took %v: they waited for the gone holder one after the other", took)
	}
}

// A GET stream opened on a replica while a subscription there waits for
// a gone holder's confirmation opens at once: the wait holds up nothing
// else of the session.
func TestGETStreamOpensWhileASubscriptionWaits(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srv, url := ackReplica(t, store)
	id := initLegacy(t, url, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	done := make(chan time.Duration, 1)
	go func() { done <- subscribeTook(t, url, id, "doc://0") }()
	time.Sleep(100 * time.Millisecond) // the subscription waits
	start := time.Now()
	get := openStream(t, "GET", url, id, "")
	waitStreamOpen(t, srv, get)
	if took := time.Since(start); took > 700*time.Millisecond {
		t.Errorf("the GET stream took %v to open: it waited for the subscription's confirmation", took)
	}
	<-done
}

// A replica named as the stream's holder that no longer holds the stream
// (its release failed: the store was down as the stream ended) answers
// at once that there is nothing to wait for: a subscription elsewhere is
// not held up by a replica that is alive.
func TestNamedHolderWithoutTheStreamConfirmsAtOnce(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srvA, urlA := ackReplica(t, store)
	_, urlB := ackReplica(t, store)
	id := initLegacy(t, urlA, `{}`)
	var holder string
	t.Run("stream", func(t *testing.T) { // its end closes the stream
		get := openStream(t, "GET", urlA, id, "")
		waitStreamOpen(t, srvA, get)
		st, err := store.Load(t.Context(), id)
		if err != nil || st.Stream == "" {
			t.Fatalf("the open stream was not recorded: %+v, %v", st, err)
		}
		holder = st.Stream
	})
	// The stream's end releases it; put the claim back, as a release the
	// store failed leaves it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := store.Load(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Stream == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ended stream was not released")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = holder; return nil }); err != nil {
		t.Fatal(err)
	}
	if took := subscribeTook(t, urlB, id, "doc://1"); took > 500*time.Millisecond {
		t.Errorf("the subscription on B took %v: A, alive and without the stream, did not confirm", took)
	}
}

// After one subscription found the named holder gone (it did not
// confirm in time), the next ones do not wait for it again.
func TestGoneHolderCostsOneTimeout(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	_, url := ackReplica(t, store)
	id := initLegacy(t, url, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	subscribeTook(t, url, id, "doc://0")
	for i := 1; i < 4; i++ {
		if took := subscribeTook(t, url, id, fmt.Sprintf("doc://%d", i)); took > 500*time.Millisecond {
			t.Errorf("subscription %d took %v: it waited for the gone holder again", i, took)
		}
	}
}
