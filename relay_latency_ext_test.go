package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// slowRelay is a memory store whose relay delivers each message a while
// after it was published, on a goroutine of its own, as a networked relay
// does: the publisher's call returns before anyone has the message.
type slowRelay struct {
	*ferry.MemorySessionStore
	delay time.Duration

	mu   sync.Mutex
	subs map[int]func([]byte)
	next int
	wg   sync.WaitGroup
}

func (s *slowRelay) Publish(_ context.Context, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, deliver := range s.subs {
		s.wg.Go(func() {
			time.Sleep(s.delay)
			s.mu.Lock() // one delivery at a time, as the contract says
			defer s.mu.Unlock()
			deliver(msg)
		})
	}
	return nil
}

func (s *slowRelay) Subscribe(deliver func([]byte)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs == nil {
		s.subs = map[int]func([]byte){}
	}
	n := s.next
	s.next++
	s.subs[n] = deliver
	return func() {
		s.mu.Lock()
		delete(s.subs, n)
		s.mu.Unlock()
	}
}

// With a relay that takes its time, a subscription taken on replica B is
// answered only once replica A, which holds the session's GET stream, has
// it: an update A makes as soon as the client has the answer reaches the
// stream. Without the wait, the update would go by before the
// subscription arrived.
func TestSubscriptionElsewhereIsAnsweredOnceTheStreamHasIt(t *testing.T) {
	store := &slowRelay{MemorySessionStore: &ferry.MemorySessionStore{}, delay: 50 * time.Millisecond}
	t.Cleanup(store.wg.Wait) // after the replicas' cleanups: cleanups run last first
	rs := startReplicas(t, 2, store, true)
	srvs, urls := rs.srv, rs.url
	id := initLegacy(t, urls[0], `{}`)
	get := openStream(t, "GET", urls[0], id, "")
	waitStreamOpen(t, srvs[0], get)
	drainEvents(get)
	start := time.Now()
	if status, _, body := post(t, urls[1], "", id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"doc://readme"}}`); status != 200 {
		t.Fatalf("subscribe on B: %d %s", status, body)
	}
	if took := time.Since(start); took < store.delay {
		t.Errorf("the subscription was answered after %v, before the relay could have brought it to the stream's replica", took)
	}
	srvs[0].NotifyResourceUpdated("doc://readme") // at once, on the stream's replica
	if ev := get.next(); !strings.Contains(ev, "notifications/resources/updated") {
		t.Fatalf("the stream got %s", ev)
	}
}

// A stream holder that is gone (its process died with the stream open)
// delays a subscription taken elsewhere by the confirmation's timeout, no
// more: the subscription is stored and answered.
func TestSubscriptionWithAGoneStreamHolderIsAnswered(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srv := ferry.NewServer("replica", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddResource(ferry.Resource{URI: "doc://readme", Name: "readme"}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "hello"}}, nil
	})
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Shutdown(context.Background()); ts.Close() })
	id := initLegacy(t, ts.URL, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		_, _, body := post(t, ts.URL, "", id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"doc://readme"}}`)
		done <- body
	}()
	select {
	case body := <-done:
		if !strings.Contains(body, `"result":{}`) {
			t.Fatalf("subscribe: %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a subscription waited for a gone stream holder for 10s")
	}
	st, err := store.Load(t.Context(), id)
	if err != nil || len(st.Subscriptions) != 1 {
		t.Fatalf("stored: %+v, %v", st, err)
	}
}
