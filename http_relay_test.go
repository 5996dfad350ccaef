package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Only answers shaped like the ids of the server's own questions are
// relayed: a client cannot make every replica decode its garbage.
func TestIsCallID(t *testing.T) {
	for range 100 {
		if id := newCallID(); !isCallID(id) {
			t.Fatalf("isCallID(%s) = false", id)
		}
	}
	for _, id := range []string{``, `1`, `"ferry-"`, `"ferry-AAAAAAAAAAAAAAAAAAAAAA`, `"other-AAAAAAAAAAAAAAAAAAAAAA"`, `"ferry-AAAAAAAAAAAAAAAAAAAAAAA"`} {
		if isCallID(json.RawMessage(id)) {
			t.Errorf("isCallID(%s) = true", id)
		}
	}
}

// blockedRelay is a relay whose Publish waits until it is released, as a
// relay whose network is down does until its timeout.
type blockedRelay struct {
	MemorySessionStore
	release   chan struct{}
	entered   chan struct{} // takes a token when a Publish begins, if it has room
	mu        sync.Mutex
	published []string
}

func (b *blockedRelay) Publish(ctx context.Context, msg []byte) error {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	var m relayMsg
	_ = json.Unmarshal(msg, &m)
	b.mu.Lock()
	b.published = append(b.published, m.URI)
	b.mu.Unlock()
	return nil
}

// Notifying never waits for a relay that is stuck: the same change waits
// once, distinct ones up to the queue's bound, and the rest are dropped
// and logged.
func TestRelayQueueNeverBlocksTheNotifier(t *testing.T) {
	logs := &lockedBuffer{}
	srv := newWatchedServer(logs)
	store := &blockedRelay{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})
	for range 3 * relayQueueSize {
		srv.NotifyResourceUpdated("doc://same")
	}
	<-store.entered // publishing one (and then Shutdown waits for it)
	h.relay.mu.Lock()
	waiting := len(h.relay.changes)
	h.relay.mu.Unlock()
	if waiting > 2 { // one may be being published already
		t.Errorf("%d copies of one change wait: they should be one", waiting)
	}
	for i := range 2 * relayQueueSize {
		srv.NotifyResourceUpdated(fmt.Sprint("doc://", i))
	}
	h.relay.mu.Lock()
	waiting = len(h.relay.changes)
	h.relay.mu.Unlock()
	if waiting > relayQueueSize {
		t.Errorf("%d changes wait, more than the bound %d", waiting, relayQueueSize)
	}
	if h.relay.dropped.Load() == 0 || !strings.Contains(logs.String(), "dropped a change") {
		t.Errorf("no drop counted or logged: %d, %s", h.relay.dropped.Load(), logs)
	}
	close(store.release)
	if err := h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.published) == 0 || len(store.published) > relayQueueSize+2 {
		t.Errorf("%d changes published", len(store.published))
	}
}

// ctxRelay is a relay whose Publish waits for its context, as a relay
// whose network is down does until its timeout.
type ctxRelay struct {
	MemorySessionStore
	entered chan struct{}
}

func (c *ctxRelay) Publish(ctx context.Context, _ []byte) error {
	select {
	case c.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// Shutdown returns when its context ends, even while a change is being
// published to a relay that is stuck: it does not wait out the relay's
// own timeout.
func TestShutdownDoesNotWaitForAStuckRelay(t *testing.T) {
	srv := newWatchedServer(io.Discard)
	store := &ctxRelay{entered: make(chan struct{}, 1)}
	h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})
	srv.NotifyResourceUpdated("doc://stuck")
	<-store.entered
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := h.Shutdown(ctx)
	if took := time.Since(start); took > time.Second {
		t.Errorf("Shutdown took %v with a 100ms context", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want the context's error", err)
	}
}

// A handler dropped without Shutdown does not stay subscribed: neither
// the store it shares nor its server keeps it (and what it serves) alive,
// or hands it every message, however many handlers come and go.
func TestRelayLetsADroppedHandlerGo(t *testing.T) {
	srv := newWatchedServer(io.Discard)
	store := &MemorySessionStore{}
	for range 50 {
		NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})
	}
	subs := func() int {
		store.relay.mu.Lock()
		defer store.relay.mu.Unlock()
		return len(store.relay.subs)
	}
	hooks := func() int {
		if p := srv.relays.Load(); p != nil {
			return len(*p)
		}
		return 0
	}
	deadline := time.Now().Add(5 * time.Second)
	for (subs() > 0 || hooks() > 0) && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if subs() > 0 || hooks() > 0 {
		t.Errorf("%d subscriptions and %d hooks of 50 dropped handlers are left", subs(), hooks())
	}
}

// pausedLoad is a store whose Load, once paused, reads the session and
// then waits, as a Load does whose answer is still on its way.
type pausedLoad struct {
	MemorySessionStore
	mu     sync.Mutex
	pause  chan struct{} // when set, Load waits after reading until it is closed
	loaded chan struct{}
}

func (p *pausedLoad) Load(ctx context.Context, id string) (*SessionState, error) {
	st, err := p.MemorySessionStore.Load(ctx, id)
	p.mu.Lock()
	pause := p.pause
	p.mu.Unlock()
	if pause != nil {
		p.loaded <- struct{}{}
		<-pause
	}
	return st, err
}

// A subscription another replica tells of while the GET stream reloads
// its session at a keepalive is kept, though the reload read the store
// before it: it is not lost until the next keepalive.
func TestRelayedSubscriptionSurvivesAKeepaliveReload(t *testing.T) {
	ctx := t.Context()
	store := &pausedLoad{loaded: make(chan struct{})}
	const id = "rvrelay-reload"
	if err := store.Create(ctx, &SessionState{ID: id, ProtocolVersion: Version20250326}); err != nil {
		t.Fatal(err)
	}
	ls := &liveSession{}
	ls.openGet()
	if _, err := ls.loadSubscriptions(ctx, store, id, ""); err != nil { // the stream's first load
		t.Fatal(err)
	}
	pause := make(chan struct{})
	store.mu.Lock()
	store.pause = pause
	store.mu.Unlock()
	done := make(chan error)
	go func() { _, err := ls.loadSubscriptions(ctx, store, id, ""); done <- err }() // a keepalive's reload
	<-store.loaded
	// Replica B stores the subscription, then relays it.
	if err := store.Update(ctx, id, func(st *SessionState) error {
		st.Subscriptions = append(st.Subscriptions, "doc://late")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ls.subscriptionChanged("doc://late", true)
	close(pause)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !ls.subscribed("doc://late") {
		t.Error("the subscription relayed during the reload was lost")
	}
}

// countingRelay counts the messages published, of each kind.
type countingRelay struct {
	MemorySessionStore
	mu    sync.Mutex
	kinds map[string]int
}

func (c *countingRelay) Publish(ctx context.Context, msg []byte) error {
	var m relayMsg
	_ = json.Unmarshal(msg, &m)
	c.mu.Lock()
	c.kinds[m.Kind]++
	c.mu.Unlock()
	return c.MemorySessionStore.Publish(ctx, msg)
}

// What a client sends that names nothing of the server's reaches no other
// replica: answers whose ids the server never gives, cancellations of ids
// longer than any request's, alone or in a batch. An answer shaped like
// the server's ids is relayed once.
func TestRelayCarriesNoGarbage(t *testing.T) {
	srv := newWatchedServer(io.Discard)
	store := &countingRelay{kinds: map[string]int{}}
	h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	id := rec.Header().Get(headerSessionID)
	if id == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	long := `"` + strings.Repeat("x", 4096) + `"`
	garbage := []string{
		`{"jsonrpc":"2.0","id":` + long + `,"result":{}}`,
		`{"jsonrpc":"2.0","id":"ferry-guess","result":{}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"no"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + long + `}}`,
	}
	batch := "[" + strings.Repeat(garbage[0]+","+garbage[3]+",", 49) + garbage[1] + "]"
	for _, body := range append(garbage, batch) {
		if rec := post(h, id, body); rec.Code != 202 {
			t.Fatalf("%.80s: %d %s", body, rec.Code, rec.Body)
		}
	}
	store.mu.Lock()
	got := maps.Clone(store.kinds)
	store.mu.Unlock()
	if len(got) != 0 {
		t.Errorf("garbage was relayed: %v", got)
	}
	post(h, id, `{"jsonrpc":"2.0","id":`+string(newCallID())+`,"result":{}}`)
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.kinds[relayReply] != 1 {
		t.Errorf("an answer shaped like the server's ids: relayed %d times, want 1", store.kinds[relayReply])
	}
}

// concurrencyStore records how many of its Updates ran at once.
type concurrencyStore struct {
	MemorySessionStore
	mu        sync.Mutex
	now, most int
}

func (c *concurrencyStore) Update(ctx context.Context, id string, f func(*SessionState) error) error {
	c.mu.Lock()
	c.now++
	c.most = max(c.most, c.now)
	c.mu.Unlock()
	time.Sleep(2 * time.Millisecond) // a networked store's round trip
	defer func() {
		c.mu.Lock()
		c.now--
		c.mu.Unlock()
	}()
	return c.MemorySessionStore.Update(ctx, id, f)
}

// A client's concurrent requests that change its session reach the store
// one at a time from one replica: a store with optimistic updates would
// only retry them against each other.
func TestOneReplicaUpdatesASessionOneAtATime(t *testing.T) {
	store := &concurrencyStore{}
	h := NewHTTPHandler(newWatchedServer(&lockedBuffer{}), &HTTPOptions{Stateful: true, SessionStore: store})
	id := initialize(t, h, `{}`)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if i%2 == 0 {
				post(h, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"logging/setLevel","params":{"level":"error"}}`, i+10))
			} else {
				post(h, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":"r://%d"}}`, i+10, i))
			}
		})
	}
	wg.Wait()
	if store.most != 1 {
		t.Errorf("%d updates of one session ran at once", store.most)
	}
}
