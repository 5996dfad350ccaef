package ferry

import (
	"context"
	"errors"
	"sync"
	"time"
)

// notificationQueueSize is a safety bound on the change notifications
// waiting for one stream, whose overflow ends the stream. It is not reached
// through the API: a queue holds one notification per list, per
// subscribed resource and per listened task, and a stream subscribes to
// at most [MaxSubscriptions] resources and tasks together.
const notificationQueueSize = 2 * MaxSubscriptions

// errStreamStalled ends a stream whose client is not reading.
var errStreamStalled = errors.New("ferry: the client is not reading its stream")

// change is one change a stream may be told of: a list change (method is
// "notifications/tools/list_changed" and the like) or a resource update
// (uri is set).
type change struct {
	method string
	uri    string
	// aud, when not nil, is who may hear of a list change: those who see
	// an entry that changed. It is cleared before the change is queued,
	// so that changes of one list still coalesce.
	aud *audience
}

// audience decides who may hear of a change of entries some callers may
// not see (see [audienceOf]).
type audience struct {
	sees func(ctx context.Context) bool
	// keys are the keys of the entries that changed, for another
	// replica's own decision (see [relayedChange]).
	keys []string
}

// watchedEntry is an entry whose changes are told to those who see it.
type watchedEntry interface {
	// key is the entry's name or URI (or URI template) in its list.
	key() string
	// openTo reports whether every caller of s sees the entry.
	openTo(s *Server) bool
	// visibleTo reports whether the caller of ctx sees it.
	visibleTo(ctx context.Context, s *Server) bool
}

// audienceOf returns who may hear that the entries changed: nil, for
// everyone, when one of them is seen by everyone; otherwise the callers
// who see one of them, so that a list change does not tell a caller of an
// entry hidden from it.
func audienceOf[E watchedEntry](s *Server, entries []E) *audience {
	for _, e := range entries {
		if e.openTo(s) {
			return nil
		}
	}
	keys := make([]string, len(entries))
	for i, e := range entries {
		keys[i] = e.key()
	}
	return &audience{keys: keys, sees: func(ctx context.Context) bool {
		for _, e := range entries {
			if e.visibleTo(ctx, s) {
				return true
			}
		}
		return false
	}}
}

const methodResourceUpdated = "notifications/resources/updated"

// watcher is a stream that hears about changes: a legacy stdio connection,
// a stateful session's GET stream, or a modern subscriptions/listen stream.
// The notifier only queues; the stream's own goroutine drains the queue
// (see [holdStream]).
type watcher struct {
	// wants reports whether the stream's client asked to hear of c. It
	// runs on the notifier's goroutine and must not block.
	wants func(c change) bool
	// caller is the context of the stream's caller (its [Principal]), for
	// the list changes only some callers may hear of; nil is anonymous.
	caller context.Context //nolint:containedctx // the stream's own: the watcher lives no longer than the stream

	mu       sync.Mutex // guards the fields below
	queue    []change
	queued   map[change]struct{} // the changes in queue
	spare    []change            // the last drained queue, reused
	overflow bool
	busy     bool // the stream is writing what it took from the queue
	// direct, when set, writes a change at once if that needs no waiting
	// (the connection's own buffer has room), and reports whether it did;
	// it is used only while nothing is queued or being written, so that
	// changes keep their order. It runs with mu held and must not block.
	direct func(change) bool

	ready chan struct{} // holds a token while queue is not empty
	full  chan struct{} // closed when the queue overflows
}

func newWatcher(wants func(change) bool) *watcher {
	return &watcher{wants: wants, queued: map[change]struct{}{},
		ready: make(chan struct{}, 1), full: make(chan struct{})}
}

// push queues c if the stream wants it, its caller may hear of it, and it
// is not queued already. It never blocks. Whether the stream wants c is
// asked first: it is cheap, and a stream that does not want c makes no
// call of c's audience (and of [ServerOptions.Visible]).
func (w *watcher) push(c change) {
	if !w.wants(c) {
		return // before the audience, which may run Visible
	}
	if c.aud != nil {
		ctx := w.caller
		if ctx == nil {
			ctx = context.Background()
		}
		if !c.aud.sees(ctx) {
			return
		}
		c.aud = nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.overflow {
		return
	}
	if _, ok := w.queued[c]; ok {
		return
	}
	if len(w.queue) == 0 && !w.busy && w.direct != nil && w.direct(c) {
		return
	}
	if len(w.queue) >= notificationQueueSize {
		w.overflow = true
		w.queue, w.queued = nil, nil
		close(w.full)
		return
	}
	w.queue = append(w.queue, c)
	w.queued[c] = struct{}{}
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// setDirect sets [watcher.direct].
func (w *watcher) setDirect(f func(change) bool) {
	w.mu.Lock()
	w.direct = f
	w.mu.Unlock()
}

// take returns the queued changes, oldest first, and empties the queue;
// the stream is busy writing them until idle. The slice is valid until the
// next take.
func (w *watcher) take() []change {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy = true
	q := w.queue
	w.queue = w.spare[:0]
	w.spare = q
	clear(w.queued)
	return q
}

// idle marks the stream done with what it took.
func (w *watcher) idle() {
	w.mu.Lock()
	w.busy = false
	w.mu.Unlock()
}

// pending returns the number of queued changes.
func (w *watcher) pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}

// watch registers w until stop is called; stop may be called more than
// once.
func (s *Server) watch(w *watcher) (stop func()) {
	s.watchMu.Lock()
	if s.watchers == nil {
		s.watchers = make(map[*watcher]struct{})
	}
	s.watchers[w] = struct{}{}
	s.watchMu.Unlock()
	return func() {
		s.watchMu.Lock()
		delete(s.watchers, w)
		s.watchMu.Unlock()
	}
}

// listChanged tells every watcher that wants it, and whose caller is in
// aud (nil: everyone), that a list changed. It does not wait for any
// stream.
func (s *Server) listChanged(method string, aud *audience) {
	c := change{method: method, aud: aud}
	for _, w := range s.currentWatchers() {
		w.push(c)
	}
	s.relay(c)
}

// currentWatchers returns the current watchers.
func (s *Server) currentWatchers() []*watcher {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	ws := make([]*watcher, 0, len(s.watchers))
	for w := range s.watchers {
		ws = append(ws, w)
	}
	return ws
}

// NotifyResourceUpdated tells every client on this replica that subscribed
// to uri (resources/subscribe in a legacy session, subscriptions/listen in
// the modern era) that the resource changed, so it may read it again.
// Clients connected to other replicas are reached when the replicas share
// a session store that relays ([SessionRelay]). It returns at once:
// the notification is queued on each stream (see
// [NotificationWriteTimeout]), and several updates of one resource that
// wait together reach a client as one. A client for whom uri names a
// resource or template it may not see (its Scopes or Roles) is not told,
// as resources/read answers it as not found.
func (s *Server) NotifyResourceUpdated(uri string) {
	c := change{method: methodResourceUpdated, uri: uri, aud: s.updateAudience(uri)}
	for _, w := range s.currentWatchers() {
		w.push(c)
	}
	s.relay(c)
}

// streamEnded logs the end of a stream whose client stopped reading.
func (s *Server) streamEnded(ctx context.Context, stream string, err error, args ...any) {
	s.logger.WarnContext(ctx, "ferry: ended a stream whose client is not reading",
		append([]any{"stream", stream, "err", err, "limit", NotificationWriteTimeout}, args...)...)
}

// holdStream keeps a long-lived stream open until ctx ends (its error) or
// closing is closed (nil, once what is queued has been written).
// Meanwhile it writes the changes w queues (if w is not nil) through
// write, and if ka is not nil it writes a keepalive every
// [keepaliveInterval]. A failed write ends the stream with its error, and
// so does an overflowing queue ([errStreamStalled]).
func holdStream(ctx context.Context, closing <-chan struct{}, ka func() error, w *watcher, write func(change) error) error {
	var tick <-chan time.Time
	if ka != nil {
		t := time.NewTicker(keepaliveInterval)
		defer t.Stop()
		tick = t.C
	}
	var ready, full <-chan struct{}
	if w != nil {
		ready, full = w.ready, w.full
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-closing:
			if w != nil {
				return writeQueued(ctx, w, write)
			}
			return nil
		case <-full:
			return errStreamStalled
		case <-ready:
			if err := writeQueued(ctx, w, write); err != nil {
				return err
			}
		case <-tick:
			if err := ka(); err != nil {
				return err
			}
		}
	}
}

// writeQueued writes what w holds.
func writeQueued(ctx context.Context, w *watcher, write func(change) error) error {
	for _, c := range w.take() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := write(c); err != nil {
			return err
		}
	}
	w.idle()
	return nil
}
