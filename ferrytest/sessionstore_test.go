package ferrytest_test

import (
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

func TestMemorySessionStoreKeepsTheContract(t *testing.T) {
	ferrytest.RunSessionStoreTests(t, func(t *testing.T) ferry.SessionStore {
		return &ferry.MemorySessionStore{}
	})
}
