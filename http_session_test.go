package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

func newStatefulHandler(t *testing.T, opts *HTTPOptions) (*HTTPHandler, *MemorySessionStore) {
	t.Helper()
	srv := newWatchedServer(&lockedBuffer{})
	store := &MemorySessionStore{}
	o := HTTPOptions{Stateful: true, SessionStore: store}
	if opts != nil {
		o = *opts
		o.Stateful = true
		if o.SessionStore == nil && o.Limits.MaxSessions == 0 {
			o.SessionStore = store
		}
	}
	return NewHTTPHandler(srv, &o), store
}

func initialize(t *testing.T, h http.Handler, caps string) string {
	t.Helper()
	rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":`+caps+`,"clientInfo":{"name":"c","version":"1"}}}`)
	id := rec.Header().Get(headerSessionID)
	if id == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	return id
}

// Concurrent resources/subscribe and logging/setLevel calls on one
// stateful session all take effect: none overwrites another.
func TestConcurrentSubscribeAndSetLevelAreAllKept(t *testing.T) {
	h, store := newStatefulHandler(t, nil)
	id := initialize(t, h, `{}`)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			post(h, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/subscribe","params":{"uri":"r://%d"}}`, i+10, i))
		})
	}
	wg.Go(func() {
		post(h, id, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	})
	wg.Wait()
	st, err := store.Load(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Subscriptions) != n {
		t.Errorf("%d subscriptions kept of %d: %v", len(st.Subscriptions), n, st.Subscriptions)
	}
	if st.LogLevel != "error" {
		t.Errorf("LogLevel = %q, want error: a concurrent subscribe overwrote it", st.LogLevel)
	}
}

// A store that fails is reported, to the client and in the log, not
// ignored.
func TestSessionStoreFailureIsAnsweredAndLogged(t *testing.T) {
	logs := &lockedBuffer{}
	srv := newWatchedServer(logs)
	store := &failingUpdates{}
	h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})
	id := initialize(t, h, `{}`)
	rec := post(h, id, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`)
	if !strings.Contains(rec.Body.String(), "session store unavailable") {
		t.Errorf("setLevel with a failing store answered %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "disk on fire") {
		t.Errorf("the store's error was not logged: %s", logs)
	}
}

type failingUpdates struct{ MemorySessionStore }

func (*failingUpdates) Update(context.Context, string, func(*SessionState) error) error {
	return fmt.Errorf("disk on fire")
}

func TestSessionLimits(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"an initialize over MaxSessions is refused clearly", func(t *testing.T) {
			h, _ := newStatefulHandler(t, &HTTPOptions{Limits: HTTPLimits{MaxSessions: 2}})
			initialize(t, h, `{}`)
			initialize(t, h, `{}`)
			rec := post(h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "too many open sessions") {
				t.Errorf("third initialize: %d %s", rec.Code, rec.Body)
			}
		}},
		{"only the capabilities used are kept", func(t *testing.T) {
			h, store := newStatefulHandler(t, nil)
			big := `{"sampling":{},"roots":{"listChanged":true},"experimental":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
			st, err := store.Load(t.Context(), initialize(t, h, big))
			if err != nil {
				t.Fatal(err)
			}
			if want := (ClientCapabilities{Sampling: true, Roots: true}); !reflect.DeepEqual(st.ClientCapabilities, want) {
				t.Errorf("ClientCapabilities = %+v, want %+v", st.ClientCapabilities, want)
			}
			if b, _ := json.Marshal(st); len(b) > 512 {
				t.Errorf("a session with 1 MB of capabilities keeps %d bytes", len(b))
			}
		}},
		{"subscriptions are capped", func(t *testing.T) {
			h, store := newStatefulHandler(t, nil)
			id := initialize(t, h, `{}`)
			for i := range MaxSubscriptions {
				post(h, id, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"r://%d"}}`, i))
			}
			rec := post(h, id, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"r://one-too-many"}}`)
			if !strings.Contains(rec.Body.String(), "too many subscriptions") {
				t.Errorf("subscription %d: %s", MaxSubscriptions+1, rec.Body)
			}
			rec = post(h, id, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"r://0"}}`)
			if !strings.Contains(rec.Body.String(), `"result":{}`) {
				t.Errorf("subscribing again to a subscribed URI at the cap: %s", rec.Body)
			}
			st, _ := store.Load(t.Context(), id)
			if len(st.Subscriptions) != MaxSubscriptions || slices.Contains(st.Subscriptions, "r://one-too-many") {
				t.Errorf("%d subscriptions kept, want %d", len(st.Subscriptions), MaxSubscriptions)
			}
		}},
		{"a subscription's URI is capped", func(t *testing.T) {
			h, _ := newStatefulHandler(t, nil)
			id := initialize(t, h, `{}`)
			long := "r://" + strings.Repeat("x", MaxSubscriptionURIBytes)
			rec := post(h, id, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"`+long+`"}}`)
			if !strings.Contains(rec.Body.String(), "bytes long") {
				t.Errorf("subscribing to a %d-byte URI: %.200s", len(long), rec.Body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}
