package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// watchError is why a request was given up: the server went quiet, or
// talked on without answering.
type watchError struct{ msg string }

func (e *watchError) Error() string { return e.msg }

// watch bounds one request's wait for its answer: it cancels the
// request's context when the server sends nothing for the idle timeout
// (the clock is held while the client answers a question of the server),
// or more than max messages that are not the answer.
type watch struct {
	ctx    context.Context //nolint:containedctx // the request's own context, which the watch cancels
	cancel context.CancelCauseFunc
	method string
	idle   time.Duration // <= 0: no idle bound

	mu    sync.Mutex
	timer *time.Timer
	done  bool // stopped: the clock stays off
	held  int  // answers to server questions under way
	seen  int  // messages other than the answer
	max   int
}

// newWatch starts watching a request for method sent under ctx.
func (c *Client) newWatch(ctx context.Context, method string) *watch {
	w := &watch{method: method, idle: c.opts.Limits.IdleTimeout, max: c.opts.Limits.MaxStreamMessages}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	if w.idle > 0 {
		w.timer = time.AfterFunc(w.idle, func() {
			w.cancel(&watchError{fmt.Sprintf("client: the server sent nothing for %v while answering %s", w.idle, method)})
		})
	}
	return w
}

// stop ends the watch and releases its context.
func (w *watch) stop() {
	w.mu.Lock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}

// heard records a message from the server that is not the answer (a
// notification, a request, an event without data, an answer to another
// id): it restarts the idle clock, and gives up the request (returning
// why) past the limit.
func (w *watch) heard() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen++
	if w.seen > w.max {
		err := &watchError{fmt.Sprintf("client: the server sent more than %d messages without answering %s", w.max, w.method)}
		w.cancel(err)
		return err
	}
	w.restart()
	return nil
}

// hold stops the idle clock while the client answers a server question
// (a person may be filling in a form); release restarts it.
func (w *watch) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held++
	if w.timer != nil {
		w.timer.Stop()
	}
}

func (w *watch) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held--
	w.restart()
}

// restart restarts the idle clock unless it is held or stopped; w.mu is
// held.
func (w *watch) restart() {
	if w.timer != nil && w.held == 0 && !w.done {
		w.timer.Reset(w.idle)
	}
}

// gaveUp returns why the watch gave the request up, or nil if it did not
// (the caller's context ending is the caller's own error).
func (w *watch) gaveUp() error {
	if we, ok := errors.AsType[*watchError](context.Cause(w.ctx)); ok {
		return we
	}
	return nil
}
