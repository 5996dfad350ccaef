package ferrytest_test

import (
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

func TestMemoryTaskStoreKeepsTheContract(t *testing.T) {
	ferrytest.RunTaskStoreTests(t, func(t *testing.T) ferry.TaskStore {
		return ferry.NewMemoryTaskStore()
	})
}

// Two servers in one process sharing one memory store share its tasks, as
// replicas sharing a Redis do: the kit's sharing subtest runs rather than
// skips.
func TestSharedMemoryTaskStoreKeepsTheContract(t *testing.T) {
	var mu sync.Mutex
	stores := map[string]*ferry.MemoryTaskStore{}
	ferrytest.RunTaskStoreTests(t, func(t *testing.T) ferry.TaskStore {
		mu.Lock()
		defer mu.Unlock()
		s := stores[t.Name()]
		if s == nil {
			s = ferry.NewMemoryTaskStore()
			stores[t.Name()] = s
		}
		return s
	})
}
