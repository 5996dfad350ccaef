package redisstore

import (
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// The Redis task store keeps the contract, and two stores of one prefix,
// each with a client of its own as two replicas have, share their tasks
// and signals.
func TestTaskStoreContract(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	prefixes := map[string]string{}
	ferrytest.RunTaskStoreTests(t, func(t *testing.T) ferry.TaskStore {
		c := testClient(t)
		mu.Lock()
		p, ok := prefixes[t.Name()]
		if !ok {
			p = testPrefix(t, c)
			prefixes[t.Name()] = p
		}
		mu.Unlock()
		s := New(c, &Options{Prefix: p})
		t.Cleanup(func() { _ = s.Close() })
		return s.Tasks()
	})
}
