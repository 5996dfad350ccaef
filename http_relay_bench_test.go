package ferry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// This file prices the relay on one replica: a handler given a
// MemorySessionStore relays to itself (and, since stateless handlers use
// a relaying store too, so does a stateless one). "plain" hides the
// store's SessionRelay, as the handler ran before.

// plainStore is a memory store without its relay.
type plainStore struct{ SessionStore }

// benchStores are the stores each benchmark runs on.
func benchStores() map[string]func() SessionStore {
	return map[string]func() SessionStore{
		"plain":    func() SessionStore { return plainStore{&MemorySessionStore{}} },
		"relaying": func() SessionStore { return &MemorySessionStore{} },
	}
}

// BenchmarkNotifyResourceUpdatedWithRelay prices NotifyResourceUpdated on
// a handler whose store relays: the same URI each time (the queue keeps
// one copy) and one of 1000 URIs in turn.
func BenchmarkNotifyResourceUpdatedWithRelay(b *testing.B) {
	uris := make([]string, 1000)
	for i := range uris {
		uris[i] = fmt.Sprintf("r://%d", i)
	}
	for _, stateful := range []bool{false, true} {
		for name, store := range benchStores() {
			for _, spread := range []int{1, len(uris)} {
				b.Run(fmt.Sprintf("stateful=%v/%s/uris=%d", stateful, name, spread), func(b *testing.B) {
					srv := NewServer("bench", "1", benchOptions())
					h := NewHTTPHandler(srv, &HTTPOptions{Stateful: stateful, SessionStore: store()})
					defer func() { _ = h.Shutdown(context.Background()) }()
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						srv.NotifyResourceUpdated(uris[i%spread])
					}
				})
			}
		}
	}
}

// cancelOnFlush is a ResponseWriter that ends its request once the
// stream's headers are flushed: a GET stream that opens and closes.
type cancelOnFlush struct {
	header http.Header
	cancel context.CancelFunc
}

func (w *cancelOnFlush) Header() http.Header         { return w.header }
func (w *cancelOnFlush) WriteHeader(int)             {}
func (w *cancelOnFlush) Write(b []byte) (int, error) { return len(b), nil }
func (w *cancelOnFlush) Flush()                      { w.cancel() }

// BenchmarkGETStreamOpenWithRelay prices opening and closing a stateful
// session's GET stream: with a relaying store it claims the stream in
// the store and releases it after.
func BenchmarkGETStreamOpenWithRelay(b *testing.B) {
	for name, store := range benchStores() {
		b.Run(name, func(b *testing.B) {
			srv := NewServer("bench", "1", benchOptions())
			srv.AddResource(Resource{URI: "r://x", Name: "x"}, func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) {
				return nil, nil
			})
			h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store()})
			defer func() { _ = h.Shutdown(context.Background()) }()
			id := post(h, "", legacySubscribe[0]).Header().Get(headerSessionID)
			if id == "" {
				b.Fatal("no session")
			}
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				req := httptest.NewRequestWithContext(ctx, "GET", "/mcp", nil)
				req.Host = "localhost"
				req.Header.Set("Accept", "text/event-stream")
				req.Header.Set(headerSessionID, id)
				w := &cancelOnFlush{header: http.Header{}, cancel: cancel}
				h.ServeHTTP(w, req)
				cancel()
			}
		})
	}
}

// BenchmarkRelayChangeToItself prices what the publishing goroutine does
// per change on one replica with a MemorySessionStore: encode the change,
// publish it, and decode it again, to find it is the handler's own.
func BenchmarkRelayChangeToItself(b *testing.B) {
	srv := NewServer("bench", "1", benchOptions())
	h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: &MemorySessionStore{}})
	defer func() { _ = h.Shutdown(context.Background()) }()
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		m := relayMsg{Kind: relayChange, Method: "notifications/resources/updated", URI: "r://x"}
		if err := h.relay.send(ctx, &m); err != nil {
			b.Fatal(err)
		}
	}
}
