package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
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
	mu        sync.Mutex
	published []string
}

func (b *blockedRelay) Publish(ctx context.Context, msg []byte) error {
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
	store := &blockedRelay{release: make(chan struct{})}
	h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})
	for range 3 * relayQueueSize {
		srv.NotifyResourceUpdated("doc://same")
	}
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
