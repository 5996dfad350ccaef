package ferrytest_test

import (
	"context"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

func TestMemorySessionStoreKeepsTheContract(t *testing.T) {
	ferrytest.RunSessionStoreTests(t, func(t *testing.T, idle time.Duration) ferry.SessionStore {
		return &ferry.MemorySessionStore{IdleTimeout: idle}
	})
}

// A store that keeps time elsewhere, as a database keeps its own TTLs,
// passes the kit without skipping any of it.
func TestRemoteClockSessionStoreKeepsTheContract(t *testing.T) {
	server := startStoreServer(t)
	ferrytest.RunSessionStoreTests(t, func(t *testing.T, idle time.Duration) ferry.SessionStore {
		return server.newStore(idle)
	})
}

// storeServer stands in for a database: it serves session stores on a
// goroutine of its own, started outside any test's control of the clock.
type storeServer struct{ calls chan func() }

func startStoreServer(t *testing.T) *storeServer {
	s := &storeServer{calls: make(chan func())}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range s.calls {
			f()
		}
	}()
	t.Cleanup(func() {
		close(s.calls)
		<-done
	})
	return s
}

// do runs f on the server's goroutine and waits for it.
func (s *storeServer) do(f func()) {
	done := make(chan struct{})
	s.calls <- func() {
		defer close(done)
		f()
	}
	<-done
}

func (s *storeServer) newStore(idle time.Duration) ferry.SessionStore {
	var m *ferry.MemorySessionStore
	s.do(func() { m = &ferry.MemorySessionStore{IdleTimeout: idle} })
	return remoteStore{s, m}
}

// remoteStore is a store of a storeServer: every call runs on the server.
type remoteStore struct {
	server *storeServer
	m      *ferry.MemorySessionStore
}

func (r remoteStore) Create(ctx context.Context, st *ferry.SessionState) (err error) {
	r.server.do(func() { err = r.m.Create(ctx, st) })
	return err
}

func (r remoteStore) Load(ctx context.Context, id string) (st *ferry.SessionState, err error) {
	r.server.do(func() { st, err = r.m.Load(ctx, id) })
	return st, err
}

func (r remoteStore) Update(ctx context.Context, id string, f func(*ferry.SessionState) error) (err error) {
	r.server.do(func() { err = r.m.Update(ctx, id, f) })
	return err
}

func (r remoteStore) Delete(ctx context.Context, id string) (err error) {
	r.server.do(func() { err = r.m.Delete(ctx, id) })
	return err
}
