package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
}

// relayQueueSize bounds the changes waiting to be published. A change
// beyond it is dropped and logged: a relay that cannot keep up (its
// network is down) costs the notifier nothing.
const relayQueueSize = 1024

// relayTimeout bounds one publication.
const relayTimeout = 5 * time.Second

// maxRelayedID is the longest request id a cancellation is relayed for:
// a longer one names no request a client would send.
const maxRelayedID = 256

// maxRelayMessage is the largest message taken from the relay: a reply
// larger than a request body could not have been received either.
const maxRelayMessage = 16 << 20

// httpRelay is a handler's link to the replicas sharing its store.
type httpRelay struct {
	h   *HTTPHandler
	pub SessionRelay
	id  string // the handler's, in From

	stopSub  func()
	stopHook func()
	once     sync.Once

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

// startRelay links h to the replicas sharing pub.
func (h *HTTPHandler) startRelay(pub SessionRelay) {
	r := &httpRelay{h: h, pub: pub, id: newSessionID()}
	h.relay = r
	r.stopSub = pub.Subscribe(r.deliver)
	r.stopHook = h.srv.addRelay(r.queue)
}

// stop unlinks the handler: it publishes no more changes, and waits for
// the one it is publishing.
func (r *httpRelay) stop() {
	r.once.Do(func() {
		r.stopHook()
		r.stopSub()
	})
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
	if idle != nil {
		<-idle
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

// send publishes m within [relayTimeout].
func (r *httpRelay) send(ctx context.Context, m *relayMsg) error {
	m.From, m.Server = r.id, r.h.srv.id
	data, err := json.Marshal(m)
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

// deliver acts on a message from the relay. It never blocks.
func (r *httpRelay) deliver(data []byte) {
	if len(data) > maxRelayMessage {
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
	if m.Kind == relayChange {
		if m.Server != r.h.srv.id {
			r.h.srv.changedElsewhere(relayedChange{method: m.Method, uri: m.URI, keys: m.Keys})
		}
		return
	}
	ls := r.h.liveGet(m.Session)
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
	case relaySubscribe:
		ls.subscribedElsewhere(m.URI, m.On)
	}
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
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return h.relay.send(ctx, &relayMsg{Kind: relayReply, Session: id, Reply: data})
}

// cancel serves notifications/cancelled for a stateful session: it
// cancels the request here, or else tells the other replicas.
func (h *HTTPHandler) cancel(ctx context.Context, sessionID string, requestID json.RawMessage) error {
	if requestID == nil || len(requestID) > maxRelayedID {
		return nil
	}
	if ls := h.liveGet(sessionID); ls != nil && ls.cancelRequest(requestID) {
		return nil
	}
	if h.relay == nil {
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
// session id.
func (h *HTTPHandler) subscribedHere(ctx context.Context, id, uri string, on bool) error {
	if h.relay == nil {
		return nil
	}
	return h.relay.send(ctx, &relayMsg{Kind: relaySubscribe, Session: id, URI: uri, On: on})
}
