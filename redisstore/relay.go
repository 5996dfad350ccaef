package redisstore

import (
	"context"
	"sync"

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
	ps   *redis.PubSub
	done chan struct{} // closed when the goroutine has returned
	once sync.Once
}

// stop closes the PubSub and waits for the goroutine.
func (sub *subscription) stop() {
	sub.once.Do(func() {
		_ = sub.ps.Close()
		<-sub.done
	})
}

// Subscribe implements [ferry.SessionRelay] with one Redis pub/sub
// connection and one goroutine calling deliver. It returns once Redis has
// confirmed the subscription, or after [Options.Timeout] if Redis does not
// answer; go-redis then keeps reconnecting and resubscribing until stop is
// called. Messages published while the connection is down are lost, as
// the relay's contract allows. stop closes the connection and waits for
// the goroutine to return. Subscribe after [Store.Close] delivers nothing.
func (s *Store) Subscribe(deliver func(msg []byte)) (stop func()) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return func() {}
	}
	ctx, cancel := s.bound(context.Background())
	defer cancel()
	ps := s.c.Subscribe(ctx, s.channel)
	// Wait for the confirmation, so that every message published after
	// Subscribe returns is delivered. A failure here (Redis down) leaves
	// the channel registered: the PubSub subscribes when it reconnects.
	first, _ := ps.ReceiveTimeout(ctx, s.timeout)
	sub := &subscription{ps: ps, done: make(chan struct{})}
	ch := ps.Channel(redis.WithChannelSize(relayBuffer))
	go func() {
		defer close(sub.done)
		if m, ok := first.(*redis.Message); ok {
			deliver([]byte(m.Payload))
		}
		for m := range ch {
			deliver([]byte(m.Payload))
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
