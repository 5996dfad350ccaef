package ferry

import (
	"context"
	"errors"
	"testing"
	"time"
)

type probeKey struct{}

// A call's context behaves as one from context.WithTimeout: it carries
// its parent's values and the nearer deadline, ends once with the error
// given, tells contexts derived from it, and Cause reports its end.
func TestCallContextBehavesAsAContext(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.WithValue(context.Background(), probeKey{}, "v"))
	defer cancelParent()
	deadline := time.Now().Add(time.Hour)
	c := newCallCtx(parent, deadline)
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
	c.end(context.DeadlineExceeded, true)
	c.end(context.Canceled, false) // a second end changes nothing
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed")
	}
	select {
	case <-child.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a derived context was not told")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(context.Cause(c), context.DeadlineExceeded) ||
		!errors.Is(child.Err(), context.DeadlineExceeded) || !callTimedOut(child) {
		t.Errorf("after the end: %v %v %v %v", c.Err(), context.Cause(c), child.Err(), callTimedOut(child))
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
}
