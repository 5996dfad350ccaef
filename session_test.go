package ferry

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

func TestMemorySessionStoreReapsIdleSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &MemorySessionStore{IdleTimeout: time.Minute}
		ctx := t.Context()
		if err := m.Create(ctx, &SessionState{ID: "kept"}); err != nil {
			t.Fatal(err)
		}
		_ = m.Create(ctx, &SessionState{ID: "idle"})
		time.Sleep(40 * time.Second)
		if _, err := m.Load(ctx, "kept"); err != nil { // use keeps it alive
			t.Fatal(err)
		}
		time.Sleep(40 * time.Second)
		if _, err := m.Load(ctx, "idle"); !errors.Is(err, ErrSessionNotFound) {
			t.Fatalf("idle session: err = %v, want ErrSessionNotFound", err)
		}
		if _, err := m.Load(ctx, "kept"); err != nil {
			t.Fatalf("used session was dropped: %v", err)
		}
		_ = m.Create(ctx, &SessionState{ID: "new"}) // sweeps
		if n := m.Len(); n != 2 {
			t.Errorf("Len = %d after the sweep, want 2 (kept, new)", n)
		}
	})
}

func TestMemorySessionStoreIsolatesState(t *testing.T) {
	m := &MemorySessionStore{}
	ctx := t.Context()
	_ = m.Create(ctx, &SessionState{ID: "s", ProtocolVersion: Version20250618})
	st, _ := m.Load(ctx, "s")
	st.LogLevel = "debug"
	again, _ := m.Load(ctx, "s")
	if again.LogLevel != "" {
		t.Fatal("changing a loaded state changed the store without Update")
	}
	if err := m.Update(ctx, "s", func(s *SessionState) error { s.LogLevel = "debug"; return nil }); err != nil {
		t.Fatal(err)
	}
	again, _ = m.Load(ctx, "s")
	if again.LogLevel != "debug" {
		t.Fatalf("LogLevel = %q after Update, want debug", again.LogLevel)
	}
	if err := m.Delete(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, "s"); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("second Delete: %v, want ErrSessionNotFound", err)
	}
}

func BenchmarkMemorySessionStoreCreate(b *testing.B) {
	m := &MemorySessionStore{}
	ctx := b.Context()
	for i := 0; b.Loop(); i++ {
		_ = m.Create(ctx, &SessionState{ID: fmt.Sprint(i), ProtocolVersion: Version20251125})
	}
}

// A full store refuses Creates without scanning its sessions each time,
// and still makes room soon after the oldest session expires.
func TestFullMemorySessionStoreSweepsOncePerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &MemorySessionStore{IdleTimeout: time.Minute, MaxSessions: 100}
		ctx := t.Context()
		for i := range m.MaxSessions {
			if err := m.Create(ctx, &SessionState{ID: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
		sweeps := m.sweeps
		for i := range 10000 {
			if err := m.Create(ctx, &SessionState{ID: fmt.Sprint("x", i)}); !errors.Is(err, ErrTooManySessions) {
				t.Fatalf("Create on a full store = %v, want ErrTooManySessions", err)
			}
		}
		if n := m.sweeps - sweeps; n > 1 {
			t.Errorf("10,000 refused Creates at one instant swept the store %d times, want at most once", n)
		}

		time.Sleep(time.Minute - time.Second) // nothing has expired yet
		if err := m.Create(ctx, &SessionState{ID: "early"}); !errors.Is(err, ErrTooManySessions) {
			t.Fatalf("Create before any session expired = %v, want ErrTooManySessions", err)
		}
		time.Sleep(time.Second + time.Minute/fullSweepDivisor)
		if err := m.Create(ctx, &SessionState{ID: "late"}); err != nil {
			t.Errorf("Create once every session expired = %v, want room", err)
		}
	})
}
