package ferry

import (
	"context"
	"sync"
	"time"
)

// MemoryTaskStore is the [TaskStore] of one process: a server whose
// [TaskOptions.Store] is nil uses one of its own. It is safe for
// concurrent use. Servers in one process that share one MemoryTaskStore
// share their tasks, as replicas sharing a Redis do.
type MemoryTaskStore struct {
	mu     sync.Mutex                        // guards every field below
	byID   map[string]*TaskRecord            // every task kept, by id
	kept   map[string]int                    // how many tasks each owner has kept
	live   map[string]map[string]*TaskRecord // each owner's tasks not terminal, by id
	swept  time.Time                         // when the expired tasks were last dropped
	nextW  int                               // the key of the next watcher
	watchs map[int]*memoryWatch              // the watches, by key
}

// memoryWatch is one [MemoryTaskStore.Watch].
type memoryWatch struct {
	f       func(id string)
	mu      sync.Mutex // guards stopped; held while f runs
	stopped bool
}

// signal calls f with id, unless the watch was stopped.
func (w *memoryWatch) signal(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.f(id)
	}
}

// NewMemoryTaskStore returns an empty store.
func NewMemoryTaskStore() *MemoryTaskStore {
	return &MemoryTaskStore{byID: map[string]*TaskRecord{}, kept: map[string]int{}, live: map[string]map[string]*TaskRecord{},
		watchs: map[int]*memoryWatch{}}
}

// sweepLocked drops the expired tasks, at most once a second unless
// force. The caller holds m.mu.
func (m *MemoryTaskStore) sweepLocked(now time.Time, force bool) {
	if !force && now.Sub(m.swept) < time.Second {
		return
	}
	m.swept = now
	for id, t := range m.byID {
		if !now.Before(t.Expires) {
			delete(m.byID, id)
			m.setLiveLocked(t.Owner, id, nil)
			if m.kept[t.Owner]--; m.kept[t.Owner] <= 0 {
				delete(m.kept, t.Owner)
			}
		}
	}
}

// Create implements [TaskStore].
func (m *MemoryTaskStore) Create(_ context.Context, t *TaskRecord, caps TaskCaps) error {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked(now, false)
	if m.kept[t.Owner] >= caps.MaxKept || m.runningLocked(t.Owner, now) >= caps.MaxRunning {
		// The owner's expired tasks may not be swept yet.
		m.sweepLocked(now, true)
		if m.kept[t.Owner] >= caps.MaxKept || m.runningLocked(t.Owner, now) >= caps.MaxRunning {
			return ErrTooManyTasks
		}
	}
	if _, taken := m.byID[t.ID]; taken {
		return ErrTooManyTasks // ids are random: never reached
	}
	c := t.Clone()
	m.byID[t.ID] = c
	m.kept[t.Owner]++
	m.setLiveLocked(t.Owner, t.ID, c)
	return nil
}

// runningLocked counts owner's running tasks. The caller holds m.mu.
func (m *MemoryTaskStore) runningLocked(owner string, now time.Time) int {
	n := 0
	for _, t := range m.live[owner] {
		if t.Running(now) && now.Before(t.Expires) {
			n++
		}
	}
	return n
}

// setLiveLocked records owner's task id as t, or forgets it when t is nil
// or terminal, among the tasks not terminal. The caller holds m.mu.
func (m *MemoryTaskStore) setLiveLocked(owner, id string, t *TaskRecord) {
	l := m.live[owner]
	if t != nil && !t.Status.Terminal() {
		if l == nil {
			l = map[string]*TaskRecord{}
			m.live[owner] = l
		}
		l[id] = t
		return
	}
	delete(l, id)
	if len(l) == 0 {
		delete(m.live, owner)
	}
}

// findLocked returns owner's live task id, or nil. The caller holds m.mu.
func (m *MemoryTaskStore) findLocked(owner, id string) *TaskRecord {
	now := time.Now()
	m.sweepLocked(now, false)
	t := m.byID[id]
	if t == nil || t.Owner != owner || !now.Before(t.Expires) {
		return nil
	}
	return t
}

// Get implements [TaskStore].
func (m *MemoryTaskStore) Get(_ context.Context, owner, id string) (*TaskRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.findLocked(owner, id)
	if t == nil {
		return nil, ErrTaskNotFound
	}
	return t.Clone(), nil
}

// Update implements [TaskStore]. The watchers are called after the
// change, on the caller's goroutine.
func (m *MemoryTaskStore) Update(_ context.Context, owner, id string, f func(*TaskRecord) error) error {
	m.mu.Lock()
	t := m.findLocked(owner, id)
	if t == nil {
		m.mu.Unlock()
		return ErrTaskNotFound
	}
	c := t.Clone()
	if err := f(c); err != nil {
		m.mu.Unlock()
		return err
	}
	c.ID, c.Owner, c.Created, c.Expires = t.ID, t.Owner, t.Created, t.Expires
	m.byID[id] = c
	m.setLiveLocked(c.Owner, id, c)
	watchers := make([]*memoryWatch, 0, len(m.watchs))
	for _, w := range m.watchs {
		watchers = append(watchers, w)
	}
	m.mu.Unlock()
	for _, w := range watchers {
		w.signal(id)
	}
	return nil
}

// Count implements [TaskStore].
func (m *MemoryTaskStore) Count(_ context.Context, owner string) (kept, running int, err error) {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked(now, true)
	return m.kept[owner], m.runningLocked(owner, now), nil
}

// Watch implements [TaskStore].
func (m *MemoryTaskStore) Watch(f func(id string)) (stop func()) {
	m.mu.Lock()
	k := m.nextW
	m.nextW++
	w := &memoryWatch{f: f}
	m.watchs[k] = w
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.watchs, k)
		m.mu.Unlock()
		w.mu.Lock()
		w.stopped = true
		w.mu.Unlock()
	}
}
