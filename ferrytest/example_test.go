package ferrytest_test

import (
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// A session store written outside Ferry, such as one backed by Redis, runs
// the kit from its own tests. Here the memory store stands in for it.
func ExampleRunSessionStoreTests() {
	// In a _test.go file:
	_ = func(t *testing.T) {
		ferrytest.RunSessionStoreTests(t, func(t *testing.T, idle time.Duration) ferry.SessionStore {
			return &ferry.MemorySessionStore{IdleTimeout: idle, MaxSessions: 100}
		})
	}
}
