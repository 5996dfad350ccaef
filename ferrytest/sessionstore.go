package ferrytest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
)

// The idle timeouts [RunSessionStoreTests] asks its stores for.
const (
	// longIdle is long enough that no session expires during a subtest.
	longIdle = time.Hour
	// expiryIdle is the Expiry subtest's: short, so that the subtest is
	// quick on the real clock, yet far above a scheduler's delays.
	expiryIdle = 200 * time.Millisecond
)

// RunSessionStoreTests checks a [ferry.SessionStore] against the contract
// of its methods, in subtests named after what they check. newStore
// returns an empty store whose sessions expire once unused for idle; it is
// called once per subtest and may use t for cleanup.
//
// Every subtest runs on the real clock, so a store that keeps time
// elsewhere (a database's own TTL) passes as the memory store does. The
// Expiry subtest asks for an idle timeout of 200 ms, uses a session, waits
// twice that without using it and expects it gone: a store must honour
// idle timeouts to within that (Redis's PEXPIRE does; whole seconds do
// not). The UseKeepsAlive subtest asks for the same 200 ms and uses a
// session every 50 ms, by Load and by Update, for three times that: each
// use must restart the idle timeout. The other subtests ask for an hour.
func RunSessionStoreTests(t *testing.T, newStore func(t *testing.T, idle time.Duration) ferry.SessionStore) {
	t.Helper()
	tests := []struct {
		name string
		idle time.Duration
		run  func(t *testing.T, s ferry.SessionStore)
	}{
		{"CreateThenLoad", longIdle, createThenLoad},
		{"CreateKeepsACopy", longIdle, createKeepsACopy},
		{"LoadReturnsACopy", longIdle, loadReturnsACopy},
		{"UpdateChangesState", longIdle, updateChangesState},
		{"UpdateErrorChangesNothing", longIdle, updateErrorChangesNothing},
		{"UnknownIsNotFound", longIdle, unknownIsNotFound},
		{"DeletedIsNotFound", longIdle, deletedIsNotFound},
		{"ConcurrentUpdatesLoseNothing", longIdle, concurrentUpdatesLoseNothing},
		{"StringsComeBackExactly", longIdle, stringsComeBackExactly},
		{"Expiry", expiryIdle, expiry},
		{"UseKeepsAlive", expiryIdle, useKeepsAlive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, newStore(t, tt.idle))
		})
	}
}

// sample returns a session with every field set.
func sample(id string) *ferry.SessionState {
	return &ferry.SessionState{
		ID:                 id,
		ProtocolVersion:    ferry.Version20250618,
		ClientCapabilities: ferry.ClientCapabilities{Sampling: true, Roots: true},
		LogLevel:           "warning",
		Subscriptions:      []string{"file:///a", "file:///b"},
		Subject:            "alice",                     // a store that drops it unbinds every session
		Issuer:             "https://login.example.com", // one that drops it gives the session to every alice
		Stream:             "handler-1",
	}
}

func mustCreate(t *testing.T, s ferry.SessionStore, st *ferry.SessionState) {
	t.Helper()
	if err := s.Create(t.Context(), st); err != nil {
		t.Fatalf("Create(%q) = %v", st.ID, err)
	}
}

func mustLoad(t *testing.T, s ferry.SessionStore, id string) *ferry.SessionState {
	t.Helper()
	st, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load(%q) = %v", id, err)
	}
	return st
}

func createThenLoad(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("s1"))
	mustCreate(t, s, &ferry.SessionState{ID: "s2", ProtocolVersion: ferry.Version20250326})
	if diff := cmp.Diff(sample("s1"), mustLoad(t, s, "s1")); diff != "" {
		t.Errorf("Load(s1) differs from what was created (-want +got):\n%s", diff)
	}
	if got := mustLoad(t, s, "s2"); got.ProtocolVersion != ferry.Version20250326 || len(got.Subscriptions) != 0 {
		t.Errorf("Load(s2) = %+v, want the second session's state", got)
	}
}

func createKeepsACopy(t *testing.T, s ferry.SessionStore) {
	st := sample("s")
	mustCreate(t, s, st)
	st.LogLevel = "debug"
	st.Subscriptions[0] = "file:///changed"
	if diff := cmp.Diff(sample("s"), mustLoad(t, s, "s")); diff != "" {
		t.Errorf("changing the state after Create changed the store (-want +got):\n%s", diff)
	}
}

func loadReturnsACopy(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("s"))
	st := mustLoad(t, s, "s")
	st.LogLevel = "debug"
	st.Subscriptions[0] = "file:///changed"
	_ = append(st.Subscriptions[:1], "file:///appended")
	if diff := cmp.Diff(sample("s"), mustLoad(t, s, "s")); diff != "" {
		t.Errorf("changing a loaded state changed the store (-want +got):\n%s", diff)
	}
}

func updateChangesState(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("s"))
	err := s.Update(t.Context(), "s", func(st *ferry.SessionState) error {
		st.LogLevel = "error"
		st.Subscriptions = append(st.Subscriptions, "file:///c")
		return nil
	})
	if err != nil {
		t.Fatalf("Update = %v", err)
	}
	want := sample("s")
	want.LogLevel = "error"
	want.Subscriptions = append(want.Subscriptions, "file:///c")
	if diff := cmp.Diff(want, mustLoad(t, s, "s")); diff != "" {
		t.Errorf("after Update (-want +got):\n%s", diff)
	}
}

func updateErrorChangesNothing(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("s"))
	refused := errors.New("refused")
	err := s.Update(t.Context(), "s", func(st *ferry.SessionState) error {
		st.LogLevel = "debug"
		st.Subscriptions[0] = "file:///changed"
		return refused
	})
	if !errors.Is(err, refused) {
		t.Errorf("Update = %v, want the error f returned", err)
	}
	if diff := cmp.Diff(sample("s"), mustLoad(t, s, "s")); diff != "" {
		t.Errorf("an Update whose f failed changed the store (-want +got):\n%s", diff)
	}
}

func wantNotFound(t *testing.T, s ferry.SessionStore, id string) {
	t.Helper()
	ctx := t.Context()
	if _, err := s.Load(ctx, id); !errors.Is(err, ferry.ErrSessionNotFound) {
		t.Errorf("Load(%q) = %v, want ErrSessionNotFound", id, err)
	}
	called := false
	err := s.Update(ctx, id, func(*ferry.SessionState) error { called = true; return nil })
	if !errors.Is(err, ferry.ErrSessionNotFound) {
		t.Errorf("Update(%q) = %v, want ErrSessionNotFound", id, err)
	}
	if called {
		t.Errorf("Update(%q) called f for a session that is not there", id)
	}
	if err := s.Delete(ctx, id); !errors.Is(err, ferry.ErrSessionNotFound) {
		t.Errorf("Delete(%q) = %v, want ErrSessionNotFound", id, err)
	}
}

func unknownIsNotFound(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("known"))
	wantNotFound(t, s, "unknown")
	mustLoad(t, s, "known")
}

func deletedIsNotFound(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("gone"))
	mustCreate(t, s, sample("kept"))
	if err := s.Delete(t.Context(), "gone"); err != nil {
		t.Fatalf("Delete = %v", err)
	}
	wantNotFound(t, s, "gone")
	mustLoad(t, s, "kept")
}

// concurrentUpdatesLoseNothing runs many updates of one session at once,
// each changing a different part of it, as resources/subscribe and
// logging/setLevel do.
func concurrentUpdatesLoseNothing(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, &ferry.SessionState{ID: "s", ProtocolVersion: ferry.Version20251125})
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	for i := range n {
		wg.Go(func() {
			uri := fmt.Sprintf("file:///%d", i)
			errs <- s.Update(context.WithoutCancel(t.Context()), "s", func(st *ferry.SessionState) error {
				st.Subscriptions = append(st.Subscriptions, uri)
				return nil
			})
		})
	}
	wg.Go(func() {
		errs <- s.Update(t.Context(), "s", func(st *ferry.SessionState) error {
			st.LogLevel = "debug"
			return nil
		})
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update = %v", err)
		}
	}
	st := mustLoad(t, s, "s")
	slices.Sort(st.Subscriptions)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("file:///%d", i))
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, st.Subscriptions); diff != "" {
		t.Errorf("concurrent updates lost subscriptions (-want +got):\n%s", diff)
	}
	if st.LogLevel != "debug" {
		t.Errorf("LogLevel = %q, want debug: a concurrent update lost it", st.LogLevel)
	}
}

// stringsComeBackExactly checks that a state whose strings are not valid
// UTF-8 is either refused by Create or loaded byte for byte: a store that
// turned "alice\xff" into "alice\ufffd" (as encoding/json does) would hand
// the session to another caller.
func stringsComeBackExactly(t *testing.T, s ferry.SessionStore) {
	st := sample("s")
	st.Subject = "alice\xff"
	st.Subscriptions = []string{"file:///\xfe\xff"}
	if err := s.Create(t.Context(), st); err != nil {
		return // refused: the store cannot keep such bytes, and says so
	}
	got := mustLoad(t, s, "s")
	if got.Subject != st.Subject || len(got.Subscriptions) != 1 || got.Subscriptions[0] != st.Subscriptions[0] {
		t.Errorf("Load returned Subject %q, Subscriptions %q; Create was given %q, %q: a store must keep the bytes or refuse them",
			got.Subject, got.Subscriptions, st.Subject, st.Subscriptions)
	}
	st = sample("i")
	st.Issuer = "https://login.example.com/\xff"
	if err := s.Create(t.Context(), st); err != nil {
		return
	}
	if got := mustLoad(t, s, "i"); got.Issuer != st.Issuer {
		t.Errorf("Load returned Issuer %q; Create was given %q: a store must keep the bytes or refuse them", got.Issuer, st.Issuer)
	}
}

// expiry checks that a session unused for longer than the idle timeout is
// gone, on the real clock.
func expiry(t *testing.T, s ferry.SessionStore) {
	mustCreate(t, s, sample("s"))
	mustLoad(t, s, "s")
	time.Sleep(2 * expiryIdle)
	wantNotFound(t, s, "s")
}

// useKeepsAlive checks that Load and Update count as use: a session used
// more often than the idle timeout outlives it several times over. A use
// that comes later than planned (a busy machine can sleep far longer than
// asked) proves nothing: the session may have expired rightly, so the
// check starts again from a new session.
func useKeepsAlive(t *testing.T, s ferry.SessionStore) {
	uses := map[string]func(id string) error{
		"Load": func(id string) error { _, err := s.Load(t.Context(), id); return err },
		"Update": func(id string) error {
			return s.Update(t.Context(), id, func(*ferry.SessionState) error { return nil })
		},
	}
	n := 0
	for _, name := range []string{"Load", "Update"} {
		n++
		id := fmt.Sprintf("s%d", n)
		mustCreate(t, s, sample(id))
		last := time.Now()
		for end := time.Now().Add(3 * expiryIdle); time.Now().Before(end); {
			time.Sleep(expiryIdle / 4)
			err := uses[name](id)
			gap := time.Since(last)
			switch {
			case err == nil:
			case gap >= expiryIdle*3/4:
				n++
				id = fmt.Sprintf("s%d", n)
				mustCreate(t, s, sample(id))
			default:
				t.Fatalf("%s, %v after the previous use with an idle timeout of %v = %v: each use must restart the idle timeout",
					name, gap.Round(time.Millisecond), expiryIdle, err)
			}
			last = time.Now()
		}
	}
}
