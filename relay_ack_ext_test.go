package ferry_test

import (
	"context"
	"fmt"
	"net/http/httptest"
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
	srv := ferry.NewServer("replica", "1", &ferry.ServerOptions{Logger: discard})
	for i := range 10 {
		uri := fmt.Sprintf("doc://%d", i)
		srv.AddResource(ferry.Resource{URI: uri, Name: fmt.Sprint("doc", i)}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, Text: "hello"}}, nil
		})
	}
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		ts.Close()
	})
	return srv, ts.URL
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
