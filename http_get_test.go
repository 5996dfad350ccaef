package ferry

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// streamlessStore is a relaying memory store that does not keep
// [SessionState.Stream], as a store written before the field (or a
// replica of an older release rewriting the session) does.
type streamlessStore struct{ *MemorySessionStore }

func (s streamlessStore) Load(ctx context.Context, id string) (*SessionState, error) {
	st, err := s.MemorySessionStore.Load(ctx, id)
	if st != nil {
		st.Stream = ""
	}
	return st, err
}

func (s streamlessStore) Update(ctx context.Context, id string, f func(*SessionState) error) error {
	return s.MemorySessionStore.Update(ctx, id, func(st *SessionState) error {
		st.Stream = ""
		err := f(st)
		st.Stream = ""
		return err
	})
}

// A GET stream whose claim the store did not keep stays open past its
// keepalives: no other stream of the session claimed it, so nothing
// replaced it. (Ending it would end every GET stream within 25s on such
// a store, even on a single replica.)
func TestGETStreamOutlivesAStoreThatDropsItsClaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newWatchedServer(&lockedBuffer{})
		h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: streamlessStore{&MemorySessionStore{}}})
		defer func() { _ = h.Shutdown(context.Background()) }()
		id := statefulSession(t, h)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, "GET", "/mcp", nil)
		req.Host = "localhost"
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(headerSessionID, id)
		w := &syncWriter{header: http.Header{}}
		done := make(chan struct{})
		go func() {
			h.ServeHTTP(w, req)
			close(done)
		}()
		time.Sleep(3*keepaliveInterval + time.Second)
		synctest.Wait()
		select {
		case <-done:
			t.Fatalf("the GET stream ended at a keepalive; it wrote %q", w.String())
		default:
		}
		if n := strings.Count(w.String(), ": keepalive"); n != 3 {
			t.Errorf("%d keepalives in %v, want 3", n, 3*keepaliveInterval+time.Second)
		}
		cancel()
		<-done
	})
}

// getStream serves a GET stream of session id on h until cancel; done is
// closed once the handler returned.
func getStream(h http.Handler, id string) (w *syncWriter, cancel context.CancelFunc, done chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, "GET", "/mcp", nil)
	req.Host = "localhost"
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, id)
	w = &syncWriter{header: http.Header{}}
	done = make(chan struct{})
	go func() {
		h.ServeHTTP(w, req)
		close(done)
	}()
	return w, cancel, done
}

// A session's GET stream opened on replica B replaces the one open on
// replica A, which ends at its next keepalive; B's stays.
func TestNewerGETStreamElsewhereReplacesTheOlder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &MemorySessionStore{}
		var hs [2]*HTTPHandler
		for i := range hs {
			hs[i] = NewHTTPHandler(newWatchedServer(&lockedBuffer{}), &HTTPOptions{Stateful: true, SessionStore: store})
			defer func() { _ = hs[i].Shutdown(context.Background()) }()
		}
		id := statefulSession(t, hs[0])
		_, cancelA, doneA := getStream(hs[0], id)
		defer cancelA()
		synctest.Wait()
		_, cancelB, doneB := getStream(hs[1], id)
		defer cancelB()
		time.Sleep(keepaliveInterval + time.Second)
		synctest.Wait()
		select {
		case <-doneA:
		default:
			t.Error("A's stream outlived its keepalive after B's replaced it")
		}
		select {
		case <-doneB:
			t.Error("B's stream, the newer, ended")
		default:
		}
		cancelB()
		<-doneB
		if st, err := store.Load(t.Context(), id); err != nil || st.Stream != "" {
			t.Errorf("after both streams ended, the stored holder is %q (%v), want none", st.Stream, err)
		}
	})
}

// A handler alone on a MemorySessionStore has nobody to relay to: its
// changes cost the notifier no allocation and start no publisher, as
// without a relay, rather than being encoded, published to itself and
// decoded again (some microseconds each).
func TestHandlerAloneOnAMemoryStoreRelaysNothing(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
		h := NewHTTPHandler(srv, &HTTPOptions{Stateful: stateful, SessionStore: &MemorySessionStore{}})
		allocs := testing.AllocsPerRun(100, func() { srv.NotifyResourceUpdated("r://x") })
		h.relay.mu.Lock()
		publishing := h.relay.publishing || len(h.relay.changes) > 0
		h.relay.mu.Unlock()
		if allocs != 0 || publishing {
			t.Errorf("stateful=%v: an update allocated %v times and queued a publication (%v)", stateful, allocs, publishing)
		}
		_ = h.Shutdown(context.Background())
	}
}
