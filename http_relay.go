package ferry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds the HTTP handler's side of [SessionRelay]: what it tells
// the other replicas sharing its session store, and what it does with what
// they tell it.

// The kinds of relay messages.
const (
	// relayReply carries a client's answer to a question a server asked,
	// received by a replica where no call waits for it.
	relayReply = "reply"
	// relayCancel carries a notifications/cancelled for a request that
	// does not run on the replica that received it.
	relayCancel = "cancel"
	// relayEnd says a DELETE ended a session: its requests and streams
	// end everywhere.
	relayEnd = "end"
	// relaySubscribe carries a resources/subscribe or unsubscribe, for
	// the session's GET stream wherever it is open.
	relaySubscribe = "subscribe"
	// relayChange carries a list change or a resource update.
	relayChange = "change"
	// relayAck confirms a relaySubscribe that asked for it (Ack set): the
	// handler holding the session's GET stream has the subscription.
	relayAck = "ack"
)

// relayMsg is one message between replicas, as JSON.
type relayMsg struct {
	// From is the sending handler: it ignores its own messages.
	From string `json:"from"`
	// Server is the sending server: a change is not told twice to the
	// streams of a server that two handlers serve.
	Server  string          `json:"server,omitempty"`
	Kind    string          `json:"kind"`
	Session string          `json:"session,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`    // the request to cancel
	Reply   json.RawMessage `json:"reply,omitempty"` // the client's answer, a JSON-RPC response
	URI     string          `json:"uri,omitempty"`   // the resource subscribed to, or updated
	On      bool            `json:"on,omitempty"`    // subscribed (true) or unsubscribed
	Method  string          `json:"method,omitempty"`
	Keys    []string        `json:"keys,omitempty"`
	// Ack, on a relaySubscribe, asks the handler holding the session's
	// GET stream to confirm, and To names the handler stored as holding
	// it; on a relayAck, Ack is the confirmation's, for the handler To.
	Ack string `json:"ack,omitempty"`
	To  string `json:"to,omitempty"`
}

// relayAckTimeout bounds how long a subscription taken on one replica
// waits for the replica holding the session's GET stream to confirm it.
// A holder that is gone (its process died with the stream open) costs
// the subscriptions taken meanwhile that long; then the session forgets
// it.
const relayAckTimeout = time.Second

// errStreamReplaced ends a GET stream whose session opened a newer one on
// another replica.
var errStreamReplaced = errors.New("ferry: the session opened its GET stream on another replica")

// relayQueueSize bounds the changes waiting to be published. A change
// beyond it is dropped and logged: a relay that cannot keep up (its
// network is down) costs the notifier nothing.
const relayQueueSize = 1024

// relayTimeout bounds one publication.
const relayTimeout = 5 * time.Second

// maxRelayedID is the longest request id a cancellation is relayed for,
// so that a client's cancellations of made-up requests cost the other
// replicas little: a request with a longer id is cancelled only on the
// replica that receives the cancellation. Clients' ids are far shorter.
const maxRelayedID = 256

// maxRelayMessage is the largest message taken from the relay when the
// handler's [HTTPLimits.MaxBodyBytes] is smaller: a reply larger than a
// request body (and the few fields around it) could not have been
// received either.
const maxRelayMessage = 16 << 20

// relayEnvelope bounds what a relay message adds to the reply it carries.
const relayEnvelope = 64 << 10

// httpRelay is a handler's link to the replicas sharing its store.
type httpRelay struct {
	h     *HTTPHandler
	pub   SessionRelay
	id    string // the handler's, in From
	limit int64  // the largest message deliver takes

	links   *relayLinks
	cleanup runtime.Cleanup // unlinks the handler once collected, if not stopped

	ackMu sync.Mutex               // guards acks
	acks  map[string]chan struct{} // the confirmations subscriptions wait for, by Ack

	// The changes waiting to be published, and whether a goroutine is
	// publishing them: one runs while there are some, and only then, so
	// that a handler never shut down leaves no goroutine behind.
	mu         sync.Mutex
	changes    []relayedChange
	waiting    map[string]struct{} // the keys of changes, so that one waits once
	publishing bool
	stopped    bool
	idle       chan struct{} // closed when the publisher is done, if stop waits for it

	dropped  atomic.Int64 // changes dropped on a full queue
	lastWarn atomic.Int64 // when a drop was last logged, unix nanoseconds
}

// relayLinks are what links a handler to its store's relay and to its
// server's changes.
type relayLinks struct {
	once     sync.Once
	stopSub  func()
	stopHook func()
}

// unlink ends both links; it may be called more than once.
func (l *relayLinks) unlink() {
	l.once.Do(func() {
		l.stopHook()
		l.stopSub()
	})
}

// startRelay links h to the replicas sharing pub. The store and the server
// hold the handler weakly: a handler dropped without [HTTPHandler.Shutdown]
// is unlinked once it is collected, instead of being kept, with all it
// serves, for as long as the store lives, and handed every message.
func (h *HTTPHandler) startRelay(pub SessionRelay) {
	r := &httpRelay{h: h, pub: pub, id: newSessionID(), limit: max(maxRelayMessage, h.maxBody+relayEnvelope)}
	h.relay = r
	wr := weak.Make(r)
	stopSub := pub.Subscribe(func(msg []byte) {
		if r := wr.Value(); r != nil {
			r.deliver(msg)
		}
	})
	stopHook := h.srv.addRelay(func(c relayedChange) {
		if r := wr.Value(); r != nil {
			r.queue(c)
		}
	})
	r.links = &relayLinks{stopSub: stopSub, stopHook: stopHook}
	// A relay's stop may wait on its network: not on the goroutine that
	// runs every cleanup of the program.
	r.cleanup = runtime.AddCleanup(h, func(l *relayLinks) { go l.unlink() }, r.links)
}

// stop unlinks the handler: it publishes no more changes, and waits for
// the one it is publishing, or for ctx to end (then ctx's error): the
// publication ends on its own within [relayTimeout].
func (r *httpRelay) stop(ctx context.Context) error {
	r.links.unlink()
	r.cleanup.Stop()
	r.mu.Lock()
	r.stopped, r.changes, r.waiting = true, nil, nil
	var idle chan struct{}
	if r.publishing {
		if r.idle == nil {
			r.idle = make(chan struct{})
		}
		idle = r.idle
	}
	r.mu.Unlock()
	if idle == nil {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitKey identifies a change among those waiting: the same change twice
// tells the other replicas nothing more than once.
func (c relayedChange) waitKey() string {
	return c.method + "\x00" + c.uri + "\x00" + strings.Join(c.keys, "\x00")
}

// queue takes a change of the handler's server, for the other replicas.
// It never blocks: a change already waiting is not queued again, and one
// beyond [relayQueueSize] waiting is dropped.
func (r *httpRelay) queue(c relayedChange) {
	if r.alone() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.stopped:
	case len(r.changes) >= relayQueueSize:
		n := r.dropped.Add(1)
		now := time.Now().UnixNano()
		if last := r.lastWarn.Load(); now-last > int64(10*time.Second) && r.lastWarn.CompareAndSwap(last, now) {
			r.h.srv.logger.Warn("ferry: dropped a change the other replicas were to hear of: the session store's relay is not keeping up",
				"method", c.method, "uri", c.uri, "dropped", n)
		}
	default:
		k := c.waitKey()
		if _, dup := r.waiting[k]; dup {
			return // the same change waits already: it tells the same
		}
		if r.waiting == nil {
			r.waiting = make(map[string]struct{})
		}
		r.waiting[k] = struct{}{}
		r.changes = append(r.changes, c)
		if !r.publishing {
			r.publishing = true
			go r.publishChanges()
		}
	}
}

// publishChanges publishes the queued changes, oldest first, until none
// is left.
func (r *httpRelay) publishChanges() {
	for {
		r.mu.Lock()
		if len(r.changes) == 0 || r.stopped {
			r.publishing = false
			if r.idle != nil {
				close(r.idle)
				r.idle = nil
			}
			r.mu.Unlock()
			return
		}
		c := r.changes[0]
		r.changes = r.changes[1:]
		delete(r.waiting, c.waitKey())
		r.mu.Unlock()
		m := relayMsg{Kind: relayChange, Method: c.method, URI: c.uri, Keys: c.keys}
		if err := r.send(context.Background(), &m); err != nil {
			r.h.srv.logger.Warn("ferry: could not tell the other replicas of a change",
				"method", c.method, "uri", c.uri, "err", err)
		}
	}
}

// alone reports whether the handler is the only one its relay reaches:
// the only subscriber of a [MemorySessionStore], which a single replica
// given one has. What it would publish would come back to it alone.
func (r *httpRelay) alone() bool {
	m, ok := r.pub.(*MemorySessionStore)
	return ok && m.relay.alone()
}

// send publishes m within [relayTimeout], unless nobody else would hear it.
func (r *httpRelay) send(ctx context.Context, m *relayMsg) error {
	if r.alone() {
		return nil
	}
	m.From, m.Server = r.id, r.h.srv.id
	data, err := marshalRelay(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), relayTimeout)
	defer cancel()
	if err := r.pub.Publish(ctx, data); err != nil {
		return fmt.Errorf("relaying a %s: %w", m.Kind, err)
	}
	return nil
}

// marshalRelay encodes v as JSON without escaping "<", ">" and "&" for
// HTML: a relay message is no web page, and the escapes would make the
// message carrying a client's answer up to six times the size of what
// the client sent.
func marshalRelay(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// deliver acts on a message from the relay. It never blocks.
func (r *httpRelay) deliver(data []byte) {
	if int64(len(data)) > r.limit {
		r.h.srv.logger.Warn("ferry: ignored a relay message larger than a request body",
			"bytes", len(data), "limit", r.limit, "hint", "give every replica the same HTTPLimits.MaxBodyBytes")
		return
	}
	var m relayMsg
	if err := json.Unmarshal(data, &m); err != nil {
		r.h.srv.logger.Warn("ferry: ignored a relay message that is not one", "err", err)
		return
	}
	if m.From == r.id {
		return
	}
	if m.Kind == relayAck {
		if m.To == r.id {
			r.acked(m.Ack)
		}
		return
	}
	if m.Kind == relayChange {
		if m.Server != r.h.srv.id {
			r.h.srv.changedElsewhere(relayedChange{method: m.Method, uri: m.URI, keys: m.Keys})
		}
		return
	}
	ls := r.h.liveGet(m.Session)
	if m.Kind == relaySubscribe {
		r.subscribedElsewhere(&m, ls)
		return
	}
	if ls == nil || m.Session == "" {
		return // nothing of the session's runs here
	}
	switch m.Kind {
	case relayReply:
		if reply, kind, err := jsonrpc.Decode(m.Reply); err == nil && kind == jsonrpc.KindResponse {
			ls.calls.deliver(reply)
		}
	case relayCancel:
		ls.cancelRequest(m.ID)
	case relayEnd:
		ls.cancelAll()
	}
}

// subscribedElsewhere applies a subscription change another replica made
// to the session's GET stream, if it is open here (ls), and confirms it
// when asked to: as the stream's holder, or as the handler stored as its
// holder (m.To), which, without the stream, has nothing to wait for (its
// stream ended and the store failed to record it).
func (r *httpRelay) subscribedElsewhere(m *relayMsg, ls *liveSession) {
	held := false
	if ls != nil && m.Session != "" {
		ls.subscriptionChanged(m.URI, m.On)
		held = ls.holdsGet()
	}
	if m.Ack == "" || len(m.Ack) > maxRelayedID || !held && m.To != r.id {
		return
	}
	// Not on the relay's goroutine: sending may wait.
	go func() {
		ack := relayMsg{Kind: relayAck, To: m.From, Ack: m.Ack}
		if err := r.send(context.Background(), &ack); err != nil {
			r.h.srv.logger.Warn("ferry: could not confirm a subscription to the replica that took it", "err", err)
		}
	}()
}

// reply delivers a client's answer to the server's question in session
// id: to the call waiting here, or else to the other replicas.
func (h *HTTPHandler) reply(ctx context.Context, id string, m *jsonrpc.Message) error {
	if ls := h.liveGet(id); ls != nil && ls.calls.deliver(m) {
		return nil
	}
	if h.relay == nil || !isCallID(m.ID) {
		return nil // not the answer to a question of ours: nobody waits for it
	}
	data, err := marshalRelay(m)
	if err != nil {
		return err
	}
	return h.relay.send(ctx, &relayMsg{Kind: relayReply, Session: id, Reply: data})
}

// cancel serves notifications/cancelled for a stateful session: it
// cancels the request here, or else tells the other replicas.
func (h *HTTPHandler) cancel(ctx context.Context, sessionID string, requestID json.RawMessage) error {
	if requestID == nil {
		return nil
	}
	if ls := h.liveGet(sessionID); ls != nil && ls.cancelRequest(requestID) {
		return nil
	}
	if h.relay == nil || len(requestID) > maxRelayedID {
		return nil
	}
	return h.relay.send(ctx, &relayMsg{Kind: relayCancel, Session: sessionID, ID: requestID})
}

// ended tells the other replicas that session id was deleted.
func (h *HTTPHandler) ended(ctx context.Context, id string) error {
	if h.relay == nil {
		return nil
	}
	return h.relay.send(ctx, &relayMsg{Kind: relayEnd, Session: id})
}

// subscribedHere tells the other replicas of a subscription change of
// session id, and returns what waits until they have it. holder is the
// handler holding the session's GET stream, as stored: when it is another
// one, the wait lasts until it confirms (at most [relayAckTimeout]), so
// that an update made on the stream's replica right after the client has
// its answer reaches the stream. The wait must be called once.
func (h *HTTPHandler) subscribedHere(ctx context.Context, id, uri string, on bool, holder string) (confirmed func(context.Context) error) {
	r := h.relay
	if r == nil {
		return func(context.Context) error { return nil }
	}
	m := &relayMsg{Kind: relaySubscribe, Session: id, URI: uri, On: on}
	if !on || holder == "" || holder == r.id {
		err := r.send(ctx, m)
		return func(context.Context) error { return err }
	}
	m.Ack, m.To = newSessionID(), holder
	done := r.expectAck(m.Ack)
	if err := r.send(ctx, m); err != nil {
		r.acked(m.Ack)
		return func(context.Context) error { return err }
	}
	return func(ctx context.Context) error {
		defer r.acked(m.Ack)
		t := time.NewTimer(relayAckTimeout)
		defer t.Stop()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			// The holder is gone: the next subscriptions need not wait
			// for it too. (A holder merely slow keeps its stream open.)
			r.clearStream(ctx, h.store, id, holder)
			return fmt.Errorf("the replica holding the session's GET stream did not confirm the subscription within %v", relayAckTimeout)
		}
	}
}

// expectAck registers a confirmation to wait for.
func (r *httpRelay) expectAck(ack string) <-chan struct{} {
	ch := make(chan struct{})
	r.ackMu.Lock()
	defer r.ackMu.Unlock()
	if r.acks == nil {
		r.acks = make(map[string]chan struct{})
	}
	r.acks[ack] = ch
	return ch
}

// acked ends the wait for a confirmation, if one waits.
func (r *httpRelay) acked(ack string) {
	r.ackMu.Lock()
	defer r.ackMu.Unlock()
	if ch, ok := r.acks[ack]; ok {
		close(ch)
		delete(r.acks, ack)
	}
}

// releaseStream clears the session's stream holder, if it is still this
// handler, once its GET stream has ended.
func (r *httpRelay) releaseStream(ctx context.Context, store SessionStore, id string) {
	r.clearStream(ctx, store, id, r.id)
}

// clearStream clears the session's stream holder, if it is still holder.
// It runs without ctx's cancellation, since the client may be gone,
// bounded by [relayTimeout].
func (r *httpRelay) clearStream(ctx context.Context, store SessionStore, id, holder string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), relayTimeout)
	defer cancel()
	err := store.Update(ctx, id, func(st *SessionState) error {
		if st.Stream != holder {
			return errStreamReplaced // not that holder's any more: nothing to change
		}
		st.Stream = ""
		return nil
	})
	if err != nil && !errors.Is(err, errStreamReplaced) && !errors.Is(err, ErrSessionNotFound) {
		r.h.srv.logger.Warn("ferry: could not record that a GET stream ended", "err", err)
	}
}
