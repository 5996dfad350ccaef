package redisstore

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// relayBuffer is how many received messages go-redis buffers for a
// subscription. The store's goroutine drains the buffer as fast as
// deliver returns, and deliver does not block, so the buffer is full only
// when Redis delivers a burst faster than deliver runs.
const relayBuffer = 1024

// Publish implements [ferry.SessionRelay] with PUBLISH on the channel
// Prefix+"relay": every subscribed store receives msg, this one included.
// It fails within [Options.Timeout] when Redis does not answer.
func (s *Store) Publish(ctx context.Context, msg []byte) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.c.Publish(ctx, s.channel, msg).Err(); err != nil {
		return fail(ctx, "publish relay message", err)
	}
	return nil
}

// subscription is one [Store.Subscribe]: a go-redis PubSub and the
// goroutine that hands its messages to deliver.
type subscription struct {
	ps      *redis.PubSub
	deliver func(msg []byte)
	timeout time.Duration // how long stop waits for the goroutine
	done    chan struct{} // closed when the goroutine has returned
	once    sync.Once

	mu      sync.Mutex // guards stopped; held while deliver runs
	stopped bool
}

// hand calls deliver with msg, unless stop has been called.
func (sub *subscription) hand(msg string) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if !sub.stopped {
		sub.deliver([]byte(msg))
	}
}

// stop ends the deliveries, closes the PubSub and waits for the goroutine,
// at most the store's timeout: go-redis closes a PubSub only once the
// reconnection it may be in has ended, which against a Redis that accepts
// connections and does not answer takes its client's dial and read
// timeouts, seconds. stop returns then anyway, having delivered its last
// message; the closing and the goroutines end when that reconnection does.
func (sub *subscription) stop() {
	sub.once.Do(func() {
		sub.mu.Lock()
		sub.stopped = true
		sub.mu.Unlock()
		go func() { _ = sub.ps.Close() }()
		t := time.NewTimer(sub.timeout)
		defer t.Stop()
		select {
		case <-sub.done:
		case <-t.C:
		}
	})
}

// Subscribe implements [ferry.SessionRelay] with one Redis pub/sub
// connection and one goroutine calling deliver. It returns once Redis has
// confirmed the subscription, or after [Options.Timeout] if Redis does not
// answer; go-redis then keeps reconnecting and resubscribing until stop is
// called. Messages published while the connection is down are lost, as
// the relay's contract allows. stop closes the connection and waits for
// the goroutine to return, at most [Options.Timeout]: nothing is delivered
// after stop returns, even when a Redis that does not answer keeps
// go-redis from closing the connection sooner. Subscribe after
// [Store.Close] delivers nothing.
func (s *Store) Subscribe(deliver func(msg []byte)) (stop func()) {
	return s.subscribe(s.channel, deliver)
}

// subscribe is [Store.Subscribe] on any channel of the store.
func (s *Store) subscribe(channel string, deliver func(msg []byte)) (stop func()) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return func() {}
	}
	ctx, cancel := s.bound(context.Background())
	defer cancel()
	ps := s.c.Subscribe(ctx, channel)
	// Wait for the confirmation, so that every message published after
	// Subscribe returns is delivered. A failure here (Redis down) leaves
	// the channel registered: the PubSub subscribes when it reconnects.
	first, _ := ps.ReceiveTimeout(ctx, s.timeout)
	sub := &subscription{ps: ps, deliver: deliver, timeout: s.timeout, done: make(chan struct{})}
	ch := ps.Channel(redis.WithChannelSize(relayBuffer))
	go func() {
		defer close(sub.done)
		if m, ok := first.(*redis.Message); ok {
			sub.hand(m.Payload)
		}
		for m := range ch {
			sub.hand(m.Payload)
		}
	}()
	s.mu.Lock()
	closed = s.closed
	if !closed {
		if s.subs == nil {
			s.subs = make(map[*subscription]struct{})
		}
		s.subs[sub] = struct{}{}
	}
	s.mu.Unlock()
	if closed {
		sub.stop()
		return func() {}
	}
	return func() {
		s.mu.Lock()
		delete(s.subs, sub)
		s.mu.Unlock()
		sub.stop()
	}
}
