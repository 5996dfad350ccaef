package ferry

import (
	"context"
	"sync"
)

// SessionRelay is an optional capability of a [SessionStore]: it carries
// messages between the replicas that share the store, so that any replica
// serves any request of a stateful session. With it, a client's answer to
// a question a tool asked ([Elicit], [CreateMessage], [ListRoots]) reaches
// the tool on whichever replica it runs, notifications/cancelled cancels a
// request running on another replica, a resources/subscribe made on one
// replica reaches the session's GET stream on another, a DELETE ends the
// session's streams and requests everywhere, and the list changes and
// resource updates ([Server.NotifyResourceUpdated]) of any replica reach
// the streams of every replica. Without it, a stateful session's live parts
// stay in the process that holds them, and replicas need sticky sessions.
//
// An [HTTPHandler] whose [HTTPOptions.SessionStore] implements
// SessionRelay subscribes when it is made and unsubscribes in
// [HTTPHandler.Shutdown] (or, dropped without it, once it is garbage
// collected: the store holds it weakly); the changes its server makes
// reach the subscriptions/listen streams of the other replicas too,
// stateful or not (a stateless handler uses the store for its relay
// only). The messages
// are the handler's own (small JSON documents); a relay carries them as
// opaque bytes. Changes are published from a bounded queue, so that
// notifying never waits for the network; when the relay cannot keep up,
// the changes beyond it are dropped and logged. A GET stream reads its
// session again at each keepalive, so that a subscription or an end that
// did not arrive is seen that late at most.
//
// The relay is best effort, as the network between replicas is: a message
// published while a replica's subscription is down may never reach it. A
// question's answer lost that way leaves the tool waiting until its
// context ends; a change lost that way reaches no client of that replica.
//
// [MemorySessionStore] implements it within one process, so that several
// handlers sharing one store behave as replicas sharing a networked one;
// the Redis store (module github.com/ferry-mcp/ferry/redisstore) does it
// across processes with Redis pub/sub.
type SessionRelay interface {
	// Publish sends msg to every subscriber, the publisher's own
	// subscription included. ctx bounds the call. msg must not be
	// modified after Publish returns, nor by the relay.
	Publish(ctx context.Context, msg []byte) error
	// Subscribe calls deliver with each message published from now on,
	// the ones published by one publisher in the order published, until
	// stop is called. deliver does not block and must not be called
	// concurrently with itself; it may keep msg. A relay that loses its
	// connection keeps trying to restore it until stopped. stop may be
	// called more than once.
	Subscribe(deliver func(msg []byte)) (stop func())
}

// memRelay is [MemorySessionStore]'s relay: it hands each message to every
// subscriber in turn, on the publisher's goroutine.
type memRelay struct {
	mu   sync.Mutex // guards subs and serializes deliveries
	subs map[*memSub]struct{}
}

type memSub struct{ deliver func([]byte) }

// Publish implements [SessionRelay]: it delivers msg to every subscriber
// before it returns.
func (m *MemorySessionStore) Publish(ctx context.Context, msg []byte) error {
	r := &m.relay
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.subs {
		s.deliver(msg)
	}
	return nil
}

// Subscribe implements [SessionRelay].
func (m *MemorySessionStore) Subscribe(deliver func(msg []byte)) (stop func()) {
	r := &m.relay
	s := &memSub{deliver: deliver}
	r.mu.Lock()
	if r.subs == nil {
		r.subs = make(map[*memSub]struct{})
	}
	r.subs[s] = struct{}{}
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.subs, s)
		r.mu.Unlock()
	}
}

// alone reports whether at most one handler listens: then a handler's
// messages reach nobody but itself.
func (r *memRelay) alone() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.subs) <= 1
}
