package ferry

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

type probeKey struct{}

// A call's context behaves as one from context.WithTimeout: it carries
// its parent's values and the nearer deadline, ends once, at its deadline,
// tells contexts derived from it, and Cause reports its end.
func TestCallContextBehavesAsAContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), probeKey{}, "v"))
		defer cancelParent()
		deadline := time.Now().Add(time.Hour)
		c := newCallCtx(parent, deadline)
		defer c.finish()
		if d, ok := c.Deadline(); !ok || !d.Equal(deadline) {
			t.Errorf("Deadline = %v, %v", d, ok)
		}
		if c.Value(probeKey{}) != "v" {
			t.Error("the parent's value is lost")
		}
		child, cancelChild := context.WithCancel(c)
		defer cancelChild()
		stopped, cancelStopped := context.WithCancel(c)
		cancelStopped()
		if c.Err() != nil || context.Cause(c) != nil || child.Err() != nil {
			t.Fatalf("a live call: %v %v %v", c.Err(), context.Cause(c), child.Err())
		}
		done := c.Done()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case <-done:
		default:
			t.Fatal("Done not closed at the deadline")
		}
		<-child.Done()
		c.finish() // a later end changes nothing
		if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(c), context.DeadlineExceeded) ||
			!errors.Is(child.Err(), context.DeadlineExceeded) || !callTimedOut(child) {
			t.Errorf("after the deadline: %v %v %v %v", c.Err(), context.Cause(c), child.Err(), callTimedOut(child))
		}
		if !errors.Is(stopped.Err(), context.Canceled) {
			t.Errorf("the stopped child: %v", stopped.Err())
		}
		late, cancelLate := context.WithCancel(c) // derived after the end: done at once
		defer cancelLate()
		<-late.Done()
		if near := newCallCtx(c, time.Now().Add(2*time.Hour)); !near.deadline.Equal(deadline) {
			t.Errorf("the parent's nearer deadline is not kept: %v", near.deadline)
		}
	})
}

// Nobody waits on a call's context unless asked: Err alone sees the
// deadline pass, with no channel and no timer; and the plain path, which
// never looks, allocates nothing.
func TestCallContextIsLazy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCallCtx(context.Background(), time.Now().Add(time.Minute))
		if c.Err() != nil || callTimedOut(c) {
			t.Fatalf("a live call: %v", c.Err())
		}
		time.Sleep(time.Minute)
		if !errors.Is(c.Err(), context.DeadlineExceeded) || !callTimedOut(c) {
			t.Errorf("past the deadline: %v %v", c.Err(), callTimedOut(c))
		}
		if c.done != nil || c.timer != nil {
			t.Errorf("Err armed a channel or a timer: %v %v", c.done, c.timer)
		}
		select {
		case <-c.Done(): // made closed, since the context had ended
		default:
			t.Error("Done of an ended context is not closed")
		}
	})
	var c callCtx
	parent := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		c = callCtx{}
		c.init(parent, time.Now().Add(time.Minute))
		_, _ = c.Deadline()
		_ = c.Value(probeKey{})
		c.finish()
	})
	if allocs != 0 {
		t.Errorf("the plain path allocates %v times", allocs)
	}
}

// A call's context ends when its parent does, once something waits on it,
// or when Err is asked; and when the call returns, its timer and its
// watch of the parent stop, and it is done.
func TestCallContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		parent, cancel := context.WithCancelCause(context.Background())
		c := newCallCtx(parent, time.Now().Add(time.Minute))
		done := c.Done()
		cancel(errProbe)
		<-done
		if !errors.Is(c.Err(), context.Canceled) || !errors.Is(context.Cause(c), errProbe) || callTimedOut(c) {
			t.Errorf("the parent cancelled: %v %v %v", c.Err(), context.Cause(c), callTimedOut(c))
		}

		parent, cancel = context.WithCancelCause(context.Background())
		lazy := newCallCtx(parent, time.Now().Add(time.Minute))
		cancel(nil)
		if !errors.Is(lazy.Err(), context.Canceled) {
			t.Errorf("Err after the parent ended: %v", lazy.Err())
		}

		parent, cancel = context.WithCancelCause(context.Background())
		defer cancel(nil)
		kept := newCallCtx(parent, time.Now().Add(time.Minute))
		derived, stop := context.WithCancel(kept)
		defer stop()
		kept.finish()
		<-derived.Done()
		if !errors.Is(kept.Err(), context.Canceled) || callTimedOut(kept) {
			t.Errorf("after the call: %v %v", kept.Err(), callTimedOut(kept))
		}
		if kept.timer.Stop() {
			t.Error("the deadline's timer still runs after the call")
		}
		if kept.unwatch() {
			t.Error("the parent is still watched after the call")
		}
	})
}

var errProbe = errors.New("probe")

// A parent cancelled before anyone asked for Done, and not yet noticed,
// ends the context when Done is first asked for: the channel comes back
// closed, once (it was closed twice, a panic, when a handler first looked
// at Done after its client went away).
func TestDoneAfterAnUnnoticedParentCancel(t *testing.T) {
	for range 100 {
		parent, cancel := context.WithCancel(context.Background())
		c := newCallCtx(parent, time.Now().Add(time.Minute))
		if c.Err() != nil {
			t.Fatal("a fresh call context has ended")
		}
		cancel()
		select {
		case <-c.Done():
		default:
			t.Fatal("Done is not closed after the parent was cancelled")
		}
		if !errors.Is(c.Err(), context.Canceled) {
			t.Fatalf("Err() = %v, want context.Canceled", c.Err())
		}
		c.finish()
	}
}
