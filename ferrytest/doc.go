// Package ferrytest holds test kits for implementations of Ferry's
// interfaces, in the style of testing/slogtest: an implementation written
// outside Ferry runs the same checks as Ferry's own. Today it holds the
// kit for session stores:
//
//	func TestRedisSessionStore(t *testing.T) {
//		ferrytest.RunSessionStoreTests(t, func(t *testing.T, idle time.Duration) ferry.SessionStore {
//			return newTestRedisStore(t, idle)
//		})
//	}
//
// # Session stores
//
// [RunSessionStoreTests] checks a [ferry.SessionStore] against the contract
// its methods document: copies in and out, atomic updates that lose
// nothing under concurrency, not-found errors, and expiry on the real clock.
package ferrytest
