package redisstore

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// collect returns a deliver func that sends each message on the channel.
func collect() (func([]byte), chan string) {
	ch := make(chan string, 64)
	return func(msg []byte) {
		select {
		case ch <- string(msg):
		default: // deliver must not block; the tests read every message
		}
	}, ch
}

func receive(t *testing.T, ch chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Errorf("delivered %q, want %q", got, want)
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("%q was not delivered within 3s", want)
	}
}

func TestRelayRoundTripBetweenStores(t *testing.T) {
	t.Parallel()
	a := newTestStore(t, Options{})
	b := New(testClient(t), &Options{Prefix: strings.TrimSuffix(a.channel, "relay")})
	t.Cleanup(func() { _ = b.Close() })
	elsewhere := newTestStore(t, Options{}) // another prefix hears nothing
	deliverA, gotA := collect()
	deliverB, gotB := collect()
	deliverE, gotE := collect()
	stopA := a.Subscribe(deliverA)
	defer stopA()
	stopB := b.Subscribe(deliverB)
	defer stopB()
	stopE := elsewhere.Subscribe(deliverE)
	defer stopE()

	ctx := t.Context()
	for i := range 3 {
		if err := a.Publish(ctx, fmt.Appendf(nil, "from a %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Publish(ctx, []byte("from b")); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan string{gotA, gotB} {
		for i := range 3 {
			receive(t, ch, fmt.Sprintf("from a %d", i)) // in the order published
		}
		receive(t, ch, "from b")
	}
	if err := elsewhere.Publish(ctx, []byte("elsewhere")); err != nil {
		t.Fatal(err)
	}
	receive(t, gotE, "elsewhere")
	select {
	case m := <-gotA:
		t.Errorf("a store of another prefix delivered %q", m)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestSubscribeStopLeavesNoGoroutine(t *testing.T) {
	s := newTestStore(t, Options{})
	// Warm the client's pool, so that its connections are not counted.
	if err := s.Publish(t.Context(), []byte("warm")); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	deliver, got := collect()
	stops := make([]func(), 3)
	for i := range stops {
		stops[i] = s.Subscribe(deliver)
	}
	if err := s.Publish(t.Context(), []byte("m")); err != nil {
		t.Fatal(err)
	}
	for range stops {
		receive(t, got, "m")
	}
	if n := runtime.NumGoroutine(); n <= before {
		t.Fatalf("%d goroutines with three subscriptions, %d before: the test counts nothing", n, before)
	}
	for _, stop := range stops {
		stop()
		stop() // stop may be called more than once
	}
	// stop waits for the store's goroutine; go-redis's own end as the
	// PubSub closes, just after.
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after stop, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Publish(t.Context(), []byte("after")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		t.Errorf("a stopped subscription delivered %q", m)
	case <-time.After(100 * time.Millisecond):
	}
}

func TestCloseStopsSubscriptions(t *testing.T) {
	t.Parallel()
	c := testClient(t)
	s := New(c, &Options{Prefix: testPrefix(t, c)})
	deliver, _ := collect()
	stop := s.Subscribe(deliver)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stop() // after Close: a no-op
	if err := s.Close(); err != nil {
		t.Errorf("a second Close = %v, want nil", err)
	}
	if late := s.Subscribe(deliver); late == nil {
		t.Error("Subscribe after Close returned a nil stop")
	} else {
		late()
	}
	// New's client is the caller's: Close leaves it open.
	if err := c.Ping(t.Context()).Err(); err != nil {
		t.Errorf("the caller's client after Close: %v", err)
	}
}

func TestPublishFailsWithinTimeoutWhenRedisIsDown(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = c.Close() })
	s := New(c, &Options{Timeout: 300 * time.Millisecond})
	start := time.Now()
	err := s.Publish(context.Background(), []byte("m"))
	if err == nil || !strings.HasPrefix(err.Error(), "redisstore: publish relay message: ") {
		t.Errorf("Publish with Redis down = %v, want a relay error", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Publish with Redis down took %v, want at most about the 300ms timeout", d)
	}
}

// silentRedis returns the address of a server that accepts connections
// and never answers, as a Redis does that is stuck or cut off by a network
// that drops packets.
func silentRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return ln.Addr().String()
}

func TestStopAndCloseDoNotHangOnASilentRedis(t *testing.T) {
	t.Parallel()
	// The client has go-redis's defaults, as a user's would: its own
	// dial and read timeouts are seconds long.
	c := redis.NewClient(&redis.Options{Addr: silentRedis(t), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = c.Close() })
	const timeout = 300 * time.Millisecond
	s := New(c, &Options{Timeout: timeout})
	start := time.Now()
	stop := s.Subscribe(func([]byte) { t.Error("a silent Redis delivered a message") })
	if d := time.Since(start); d > timeout+time.Second {
		t.Errorf("Subscribe took %v, want about the %v timeout", d, timeout)
	}
	time.Sleep(100 * time.Millisecond) // go-redis is reconnecting now
	start = time.Now()
	stop()
	if d := time.Since(start); d > timeout+time.Second {
		t.Errorf("stop took %v with Redis silent, want about the %v timeout at most", d, timeout)
	}
	s.Subscribe(func([]byte) {})
	s.Subscribe(func([]byte) {})
	time.Sleep(100 * time.Millisecond)
	start = time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if d := time.Since(start); d > timeout+time.Second {
		t.Errorf("Close of a store with two subscriptions took %v with Redis silent, want about the %v timeout at most", d, timeout)
	}
}
