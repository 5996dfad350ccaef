package ferry

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// This file holds the session store kept in this process.

// MemorySessionStore is a [SessionStore] in this process's memory. Idle
// sessions are dropped lazily, as later sessions are created, so an idle
// session costs a few hundred bytes and no goroutine. The zero value is
// ready to use. It is safe for concurrent use.
type MemorySessionStore struct {
	// IdleTimeout is how long a session may go unused. If zero,
	// [DefaultSessionIdleTimeout] is used.
	IdleTimeout time.Duration
	// MaxSessions is the most sessions held at once; Create returns
	// [ErrTooManySessions] beyond it. If zero, [DefaultMaxSessions]. A
	// full store takes a new session once an idle one has expired, at
	// most a hundredth of IdleTimeout after it did.
	MaxSessions int

	mu       sync.Mutex // guards the fields below
	sessions map[string]*memSession
	// nextSweep is when Create next sweeps, full or not; fullSweep is
	// when it may sweep sooner because the store is full: once the oldest
	// session may have expired, but no more than once per
	// [fullSweepDivisor]th of the idle timeout. Both are unix nanoseconds.
	nextSweep int64
	fullSweep int64
	sweeps    int // sweeps run, for tests

	relay memRelay // the store's [SessionRelay]
}

// A full [MemorySessionStore] sweeps at most once per this fraction of its
// idle timeout: a Create it refuses costs a map lookup, not a scan of
// every session, and a session that expires makes room at most this late.
const fullSweepDivisor = 100

type memSession struct {
	lastSeen atomic.Int64 // unix nanoseconds

	mu    sync.Mutex // guards state
	state *SessionState
}

func (m *MemorySessionStore) timeout() time.Duration {
	if m.IdleTimeout > 0 {
		return m.IdleTimeout
	}
	return DefaultSessionIdleTimeout
}

func (m *MemorySessionStore) max() int {
	if m.MaxSessions > 0 {
		return m.MaxSessions
	}
	return DefaultMaxSessions
}

// Create implements [SessionStore].
func (m *MemorySessionStore) Create(ctx context.Context, s *SessionState) error {
	now := time.Now().UnixNano()
	e := &memSession{state: s.clone()}
	e.lastSeen.Store(now)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions == nil {
		m.sessions = make(map[string]*memSession)
	}
	full := len(m.sessions) >= m.max()
	if now >= m.nextSweep || full && now >= m.fullSweep {
		m.sweep(now)
		full = len(m.sessions) >= m.max()
	}
	if full {
		return ErrTooManySessions
	}
	m.sessions[s.ID] = e
	return nil
}

// sweep drops idle sessions; the caller holds m.mu. It runs once per
// tenth of the idle timeout, so its cost is spread thin, and sooner only
// when the store is full and a session may have expired (see
// [MemorySessionStore.fullSweep]).
func (m *MemorySessionStore) sweep(now int64) {
	timeout := int64(m.timeout())
	limit := now - timeout
	oldest := now
	for id, e := range m.sessions {
		seen := e.lastSeen.Load()
		if seen < limit {
			delete(m.sessions, id)
		} else if seen < oldest {
			oldest = seen
		}
	}
	m.sweeps++
	m.nextSweep = now + timeout/10
	// A session's last use only moves forward, and a later session's
	// starts later, so none expires before the oldest kept one.
	m.fullSweep = max(oldest+timeout+1, now+timeout/fullSweepDivisor)
}

// get returns the live session id, marking it used.
func (m *MemorySessionStore) get(id string) (*memSession, error) {
	m.mu.Lock()
	e, ok := m.sessions[id]
	m.mu.Unlock()
	now := time.Now().UnixNano()
	if !ok || e.lastSeen.Load() < now-int64(m.timeout()) {
		return nil, ErrSessionNotFound
	}
	e.lastSeen.Store(now)
	return e, nil
}

// Load implements [SessionStore]. It counts as use of the session.
func (m *MemorySessionStore) Load(ctx context.Context, id string) (*SessionState, error) {
	e, err := m.get(id)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.state.clone(), nil
}

// Update implements [SessionStore]. It counts as use of the session; f
// runs once, with the session locked.
func (m *MemorySessionStore) Update(ctx context.Context, id string, f func(*SessionState) error) error {
	e, err := m.get(id)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	st := e.state.clone()
	if err := f(st); err != nil {
		return err
	}
	st.ID = id
	e.state = st
	return nil
}

// Delete implements [SessionStore].
func (m *MemorySessionStore) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.sessions[id]
	if !ok {
		return ErrSessionNotFound
	}
	delete(m.sessions, id)
	if e.lastSeen.Load() < time.Now().UnixNano()-int64(m.timeout()) {
		return ErrSessionNotFound // expired already
	}
	return nil
}

// Len returns the number of sessions held, idle ones not yet dropped
// included.
func (m *MemorySessionStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}
