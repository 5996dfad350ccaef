package interop

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// subscribeRounds is how many subscribe-then-update rounds the test makes:
// over Redis a round loses its update a few times in a hundred.
const subscribeRounds = 300

// Once resources/subscribe is answered, by whichever replica, an update
// of the resource made on the replica holding the session's GET stream
// reaches the stream, as it does on one replica. Each round subscribes
// through replica A, then updates the resource and then a sentinel the
// stream was subscribed to from the start, both on replica B, which holds
// the stream: a stream writes what it is told in order, so when the
// sentinel arrives the update must have arrived before it.
func TestReplicasUpdateRightAfterSubscribeReachesTheStream(t *testing.T) {
	for _, st := range sharedStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, 2, st, nil)
			ctx, cancel := context.WithTimeout(t.Context(), backPressureGuard)
			defer cancel()
			a, b := c.urls[0], c.srv[1]
			id := rawInitialize(ctx, t, a)
			sentinel := "doc://item/sentinel-" + randomHex(4)
			rawSubscribe(ctx, t, a, id, sentinel)
			stream := openReadingGET(ctx, t, c.urls[1], id)
			for i := range subscribeRounds {
				uri := fmt.Sprintf("doc://item/round-%d-%s", i, randomHex(4))
				rawSubscribe(ctx, t, a, id, uri)
				b.NotifyResourceUpdated(uri)
				b.NotifyResourceUpdated(sentinel)
				for stream.times(sentinel) < i+1 {
					select {
					case <-ctx.Done():
						t.Fatalf("round %d: the sentinel did not arrive within %v", i, backPressureGuard)
					case <-time.After(time.Millisecond):
					}
				}
				if !stream.saw(uri) {
					t.Fatalf("round %d of %d: the update of %s made on B (which holds the GET stream) once A had answered resources/subscribe never reached the stream; %s",
						i+1, subscribeRounds, uri, laterUpdate(ctx, b.NotifyResourceUpdated, stream, uri))
				}
			}
		})
	}
}

// laterUpdate says whether later updates of uri reach the stream, and
// when: whether the subscription was late or lost.
func laterUpdate(ctx context.Context, notify func(string), stream *readingStream, uri string) string {
	start := time.Now()
	for !stream.saw(uri) && time.Since(start) < eventTimeout && ctx.Err() == nil {
		notify(uri)
		time.Sleep(time.Millisecond)
	}
	if stream.saw(uri) {
		return fmt.Sprintf("a later update did, %v after: B heard of the subscription from the relay only after the update", time.Since(start).Round(time.Microsecond))
	}
	return fmt.Sprintf("no later update did either, within %v", eventTimeout)
}
