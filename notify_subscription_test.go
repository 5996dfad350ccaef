package ferry

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// What one session keeps of its subscriptions is bounded by the bytes of
// their URIs too, not only by their number: 512 URIs of 2 KiB would be a
// megabyte a session.
func TestSubscriptionsAreBoundedInBytes(t *testing.T) {
	uri := func(i int) string { return fmt.Sprintf("x://%04d/%s", i, strings.Repeat("a", 1990)) }
	allowed := MaxSubscriptionBytes / len(uri(0))
	var list []string
	set := map[string]bool{}
	var want []string
	for i := range allowed + 1 {
		var err error
		list, err = subscribeList(list, uri(i), true)
		serr := subscribeSet(set, uri(i), true)
		want = append(want, uri(i))
		if got := err != nil; got != (i == allowed) {
			t.Fatalf("list: subscription %d: %v", i, err)
		}
		if got := serr != nil; got != (i == allowed) {
			t.Fatalf("set: subscription %d: %v", i, serr)
		}
	}
	if len(list) != allowed || len(set) != allowed {
		t.Errorf("kept %d and %d subscriptions; want %d", len(list), len(set), allowed)
	}
	s := NewServer("s", "1", nil)
	s.AddResource(Resource{URI: "x://r", Name: "r"}, func(ctx context.Context, req *ReadResourceRequest) ([]ResourceContents, error) { return nil, nil })
	p := &wireParams{Notifications: &listenFilter{ResourceSubscriptions: want}}
	if _, err := s.listenFilter(p); err == nil || !strings.Contains(err.Error(), "bytes together") {
		t.Errorf("listen with %d bytes of URIs: %v", allowed*len(uri(0))+len(uri(0)), err)
	}
}
