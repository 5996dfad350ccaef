package ferrytest

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
)

// wideCaps are caps no subtest reaches unless it means to.
var wideCaps = ferry.TaskCaps{MaxRunning: 1000, MaxKept: 1000}

// RunTaskStoreTests checks a [ferry.TaskStore] against the contract of
// its methods, in subtests named after what they check. newStore returns
// an empty store; it is called once per subtest (twice by the subtests
// that check sharing, which expect the two stores to share their tasks,
// as replicas sharing a Redis do) and may use t for cleanup.
//
// Every subtest runs on the real clock. The Expiry subtest creates a task
// that expires in 200 ms and expects it gone 400 ms later; the
// LeasePassedIsNotRunning subtest creates a task whose lease passed and
// expects it not to count as running.
func RunTaskStoreTests(t *testing.T, newStore func(t *testing.T) ferry.TaskStore) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, newStore func(t *testing.T) ferry.TaskStore)
	}{
		{"CreateThenGet", createThenGet},
		{"CopiesAreKept", taskCopies},
		{"AnotherOwnerIsNotFound", anotherOwner},
		{"UnknownIsNotFound", unknownTask},
		{"UpdateChangesTask", updateChangesTask},
		{"UpdateErrorChangesNothing", taskUpdateErrorChangesNothing},
		{"ConcurrentUpdatesLoseNothing", concurrentTaskUpdates},
		{"CapsBoundRunning", capsBoundRunning},
		{"CapsBoundKept", capsBoundKept},
		{"LeasePassedIsNotRunning", leasePassed},
		{"Expiry", taskExpiry},
		{"WatchSignalsUpdates", watchSignals},
		{"SharedStoresShareTasks", sharedStores},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newStore) })
	}
}

// sampleTask returns a working task of owner with every field set.
// kitStart is when the package was loaded: the sample tasks' times start
// there, so that two made apart compare equal.
var kitStart = time.Now().Truncate(time.Millisecond)

// sampleTask returns a working task of owner with every field set, whose
// lease passes an hour after kitStart and which expires an hour later.
func sampleTask(id, owner string) *ferry.TaskRecord {
	now := kitStart
	return &ferry.TaskRecord{
		ID: id, Owner: owner, Status: ferry.TaskWorking, Message: "starting",
		Created: now, Updated: now, Expires: now.Add(2 * time.Hour), Lease: now.Add(time.Hour),
		Requests: map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create"}`)},
		Answers:  map[string]json.RawMessage{"a": json.RawMessage(`{"action":"accept"}`)},
	}
}

func mustCreateTask(t *testing.T, s ferry.TaskStore, r *ferry.TaskRecord) {
	t.Helper()
	if err := s.Create(t.Context(), r, wideCaps); err != nil {
		t.Fatalf("Create(%q) = %v", r.ID, err)
	}
}

func mustGetTask(t *testing.T, s ferry.TaskStore, owner, id string) *ferry.TaskRecord {
	t.Helper()
	r, err := s.Get(t.Context(), owner, id)
	if err != nil {
		t.Fatalf("Get(%q, %q) = %v", owner, id, err)
	}
	return r
}

func createThenGet(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	mustCreateTask(t, s, sampleTask("t1", "\x00iss\x00alice"))
	mustCreateTask(t, s, sampleTask("t2", ""))
	if diff := cmp.Diff(sampleTask("t1", "\x00iss\x00alice"), mustGetTask(t, s, "\x00iss\x00alice", "t1")); diff != "" {
		t.Errorf("Get(t1) differs from what was created (-want +got):\n%s", diff)
	}
	if got := mustGetTask(t, s, "", "t2"); got.Owner != "" || got.ID != "t2" {
		t.Errorf("Get(t2) = %+v, want the anonymous task", got)
	}
}

func taskCopies(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	r := sampleTask("t", "o")
	mustCreateTask(t, s, r)
	r.Status, r.Answers["a"] = ferry.TaskFailed, json.RawMessage(`1`)
	got := mustGetTask(t, s, "o", "t")
	got.Status, got.Requests["q"] = ferry.TaskFailed, json.RawMessage(`2`)
	if diff := cmp.Diff(sampleTask("t", "o"), mustGetTask(t, s, "o", "t")); diff != "" {
		t.Errorf("changing what Create took or Get gave changed the store (-want +got):\n%s", diff)
	}
}

func anotherOwner(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	mustCreateTask(t, s, sampleTask("t", "\x00iss\x00alice"))
	for _, other := range []string{"", "\x00iss\x00bob", "\x00other\x00alice", "\x00iss\x00alice "} {
		if _, err := s.Get(t.Context(), other, "t"); !errors.Is(err, ferry.ErrTaskNotFound) {
			t.Errorf("Get by %q = %v, want ErrTaskNotFound", other, err)
		}
		called := false
		err := s.Update(t.Context(), other, "t", func(r *ferry.TaskRecord) error {
			called = true
			r.Status = ferry.TaskCancelled
			return nil
		})
		if !errors.Is(err, ferry.ErrTaskNotFound) || called {
			t.Errorf("Update by %q = %v (f called: %v), want ErrTaskNotFound without calling f", other, err, called)
		}
	}
	if got := mustGetTask(t, s, "\x00iss\x00alice", "t"); got.Status != ferry.TaskWorking {
		t.Errorf("the owner's task is %s after others' updates", got.Status)
	}
}

func unknownTask(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	if _, err := s.Get(t.Context(), "", "nope"); !errors.Is(err, ferry.ErrTaskNotFound) {
		t.Errorf("Get(unknown) = %v, want ErrTaskNotFound", err)
	}
	if err := s.Update(t.Context(), "", "nope", func(*ferry.TaskRecord) error { return nil }); !errors.Is(err, ferry.ErrTaskNotFound) {
		t.Errorf("Update(unknown) = %v, want ErrTaskNotFound", err)
	}
}

func updateChangesTask(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	mustCreateTask(t, s, sampleTask("t", "o"))
	result := json.RawMessage(`{"content":[{"type":"text","text":"done ✓"}],"isError":false}`)
	err := s.Update(t.Context(), "o", "t", func(r *ferry.TaskRecord) error {
		r.Status, r.Result, r.Requests, r.Lease, r.Message = ferry.TaskCompleted, result, nil, time.Time{}, ""
		return nil
	})
	if err != nil {
		t.Fatalf("Update = %v", err)
	}
	want := sampleTask("t", "o")
	want.Status, want.Result, want.Requests, want.Lease, want.Message = ferry.TaskCompleted, result, nil, time.Time{}, ""
	if diff := cmp.Diff(want, mustGetTask(t, s, "o", "t")); diff != "" {
		t.Errorf("Get after Update (-want +got):\n%s", diff)
	}
}

func taskUpdateErrorChangesNothing(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	mustCreateTask(t, s, sampleTask("t", "o"))
	boom := errors.New("boom")
	err := s.Update(t.Context(), "o", "t", func(r *ferry.TaskRecord) error {
		r.Status = ferry.TaskCancelled
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("Update = %v, want f's error", err)
	}
	if got := mustGetTask(t, s, "o", "t"); got.Status != ferry.TaskWorking {
		t.Errorf("a failed Update left the task %s", got.Status)
	}
}

func concurrentTaskUpdates(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	r := sampleTask("t", "o")
	r.Answers = nil
	mustCreateTask(t, s, r)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			err := s.Update(t.Context(), "o", "t", func(r *ferry.TaskRecord) error {
				if r.Answers == nil {
					r.Answers = map[string]json.RawMessage{}
				}
				r.Answers[fmt.Sprint(i)] = json.RawMessage(`true`)
				return nil
			})
			if err != nil {
				t.Errorf("Update %d = %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := mustGetTask(t, s, "o", "t"); len(got.Answers) != n {
		t.Errorf("after %d concurrent updates the task has %d answers: updates were lost", n, len(got.Answers))
	}
}

func capsBoundRunning(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	caps := ferry.TaskCaps{MaxRunning: 2, MaxKept: 10}
	for _, id := range []string{"a", "b"} {
		if err := s.Create(t.Context(), sampleTask(id, "o"), caps); err != nil {
			t.Fatalf("Create(%s) = %v", id, err)
		}
	}
	if err := s.Create(t.Context(), sampleTask("c", "o"), caps); !errors.Is(err, ferry.ErrTooManyTasks) {
		t.Errorf("a third running task: Create = %v, want ErrTooManyTasks", err)
	}
	if err := s.Create(t.Context(), sampleTask("c", "other"), caps); err != nil {
		t.Errorf("another owner's task: Create = %v, want it kept", err)
	}
	if kept, running, err := s.Count(t.Context(), "o"); err != nil || kept != 2 || running != 2 {
		t.Errorf("Count = %d, %d, %v, want 2 kept, 2 running", kept, running, err)
	}
	err := s.Update(t.Context(), "o", "a", func(r *ferry.TaskRecord) error {
		r.Status, r.Lease = ferry.TaskCompleted, time.Time{}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(t.Context(), sampleTask("d", "o"), caps); err != nil {
		t.Errorf("after a task ended: Create = %v, want it kept", err)
	}
	if kept, running, err := s.Count(t.Context(), "o"); err != nil || kept != 3 || running != 2 {
		t.Errorf("Count = %d, %d, %v, want 3 kept, 2 running", kept, running, err)
	}
}

func capsBoundKept(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	caps := ferry.TaskCaps{MaxRunning: 10, MaxKept: 2}
	for _, id := range []string{"a", "b"} {
		r := sampleTask(id, "o")
		r.Status, r.Lease = ferry.TaskCompleted, time.Time{}
		if err := s.Create(t.Context(), r, caps); err != nil {
			t.Fatalf("Create(%s) = %v", id, err)
		}
	}
	if err := s.Create(t.Context(), sampleTask("c", "o"), caps); !errors.Is(err, ferry.ErrTooManyTasks) {
		t.Errorf("a third kept task: Create = %v, want ErrTooManyTasks", err)
	}
	if _, err := s.Get(t.Context(), "o", "c"); !errors.Is(err, ferry.ErrTaskNotFound) {
		t.Errorf("a refused task: Get = %v, want ErrTaskNotFound", err)
	}
}

func leasePassed(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	caps := ferry.TaskCaps{MaxRunning: 1, MaxKept: 10}
	r := sampleTask("dead", "o")
	r.Lease = time.Now().Add(-time.Second)
	if err := s.Create(t.Context(), r, caps); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(t.Context(), sampleTask("live", "o"), caps); err != nil {
		t.Errorf("a task whose lease passed counted as running: Create = %v", err)
	}
	if _, running, err := s.Count(t.Context(), "o"); err != nil || running != 1 {
		t.Errorf("Count: %d running, %v, want 1", running, err)
	}
}

func taskExpiry(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	caps := ferry.TaskCaps{MaxRunning: 10, MaxKept: 1}
	r := sampleTask("t", "o")
	r.Expires = time.Now().Add(200 * time.Millisecond)
	if err := s.Create(t.Context(), r, caps); err != nil {
		t.Fatal(err)
	}
	mustGetTask(t, s, "o", "t")
	time.Sleep(400 * time.Millisecond)
	if _, err := s.Get(t.Context(), "o", "t"); !errors.Is(err, ferry.ErrTaskNotFound) {
		t.Errorf("Get after the task expired = %v, want ErrTaskNotFound", err)
	}
	if err := s.Update(t.Context(), "o", "t", func(*ferry.TaskRecord) error { return nil }); !errors.Is(err, ferry.ErrTaskNotFound) {
		t.Errorf("Update after the task expired = %v, want ErrTaskNotFound", err)
	}
	if err := s.Create(t.Context(), sampleTask("u", "o"), caps); err != nil {
		t.Errorf("an expired task still counted as kept: Create = %v", err)
	}
}

func watchSignals(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	s := newStore(t)
	got := make(chan string, 16)
	stop := s.Watch(func(id string) {
		select {
		case got <- id:
		default:
		}
	})
	mustCreateTask(t, s, sampleTask("t", "o"))
	if err := s.Update(t.Context(), "o", "t", func(r *ferry.TaskRecord) error { r.Message = "half"; return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-got:
		if id != "t" {
			t.Errorf("Watch delivered %q, want t", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch delivered nothing 5s after an Update")
	}
	stop()
	for len(got) > 0 {
		<-got
	}
	if err := s.Update(t.Context(), "o", "t", func(r *ferry.TaskRecord) error { r.Message = "more"; return nil }); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-got:
		t.Errorf("Watch delivered %q after stop", id)
	case <-time.After(100 * time.Millisecond):
	}
}

func sharedStores(t *testing.T, newStore func(*testing.T) ferry.TaskStore) {
	a := newStore(t)
	b := newStore(t)
	if err := a.Create(t.Context(), sampleTask("probe", "o"), wideCaps); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(t.Context(), "o", "probe"); errors.Is(err, ferry.ErrTaskNotFound) {
		t.Skip("the stores newStore returns do not share their tasks")
	}
	got := make(chan string, 16)
	stop := a.Watch(func(id string) {
		select {
		case got <- id:
		default:
		}
	})
	defer stop()
	if err := b.Update(t.Context(), "o", "probe", func(r *ferry.TaskRecord) error {
		r.Status, r.Lease = ferry.TaskCancelled, time.Time{}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-got:
		if id != "probe" {
			t.Errorf("a's Watch delivered %q, want probe", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("an Update through one store was not signalled to another sharing it")
	}
	if r := mustGetTask(t, a, "o", "probe"); r.Status != ferry.TaskCancelled {
		t.Errorf("a reads %s after b cancelled the task", r.Status)
	}
}
