package ferry

import (
	"context"
	"sync"
	"time"
)

// callCtx is the context of a tool call under [ServerOptions.CallTimeout]:
// its parent's values, its own deadline, and an end the call itself
// decides (see [Server.runTool]), which saves the timer, the goroutine
// and the allocations of [context.WithTimeout] on every call. Contexts
// derived from it are told of its end through AfterFunc, as the context
// package does for its own.
type callCtx struct {
	parent   context.Context //nolint:containedctx // a context's parent, as the context package keeps it
	deadline time.Time

	mu       sync.Mutex // guards the fields below
	done     chan struct{}
	err      error
	timedOut bool
	afters   map[*func()]struct{}
}

func newCallCtx(parent context.Context, deadline time.Time) *callCtx {
	c := new(callCtx)
	c.init(parent, deadline)
	return c
}

// init sets a new context's parent and deadline: the parent's, when it is
// nearer.
func (c *callCtx) init(parent context.Context, deadline time.Time) {
	if d, ok := parent.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.parent, c.deadline = parent, deadline
}

// Deadline implements [context.Context].
func (c *callCtx) Deadline() (time.Time, bool) { return c.deadline, true }

// Done implements [context.Context]; the channel is made on first use.
func (c *callCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

// Err implements [context.Context].
func (c *callCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

type callCtxKey struct{}

// Value implements [context.Context]. ([context.Cause] of a call's
// context that ended is its Err, unless its parent was cancelled with a
// cause of its own.)
func (c *callCtx) Value(key any) any {
	if key == (callCtxKey{}) {
		return c
	}
	return c.parent.Value(key)
}

// AfterFunc arranges for f to run on its own goroutine once the call has
// ended, as [context.AfterFunc] does; stop reports whether it stopped f
// from running. The context package calls it for contexts derived from c.
func (c *callCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	if c.afters == nil {
		c.afters = map[*func()]struct{}{}
	}
	key := &f
	c.afters[key] = struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.afters[key]
		delete(c.afters, key)
		return ok
	}
}

// end ends the call's context with err, once.
func (c *callCtx) end(err error, timedOut bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.timedOut = err, timedOut
	if c.done != nil {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for f := range afters {
		go (*f)()
	}
}

// callTimedOut reports whether ctx is (or derives from) the context of a
// call that passed its [ServerOptions.CallTimeout].
func callTimedOut(ctx context.Context) bool {
	c, ok := ctx.Value(callCtxKey{}).(*callCtx)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timedOut
}
