package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/bench/internal/wire"
	"github.com/ferry-mcp/ferry/redisstore"
)

// benchRedisAddr is the Redis BenchmarkStatefulToolCall/redis uses.
const benchRedisAddr = "127.0.0.1:6379"

// BenchmarkStatefulToolCall measures one tools/call add in a legacy
// 2025-06-18 stateful session through Ferry's http.Handler, with the
// session kept in memory and in Redis, side by side: the Redis one pays a
// round trip for the session's Load (one Lua script) per call. The request
// and response writer are reused, as in [BenchmarkToolsCall].
func BenchmarkStatefulToolCall(b *testing.B) {
	b.Run("memory", func(b *testing.B) {
		benchStateful(b, &ferry.MemorySessionStore{})
	})
	b.Run("redis", func(b *testing.B) {
		benchStateful(b, benchRedisStore(b))
	})
}

func benchStateful(b *testing.B, store ferry.SessionStore) {
	h := ferry.NewHTTPHandler(newFerryServer(), &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	benchCall(b, h, session(b, h), wire.AppendAddCall(nil, 2))
}

// benchRedisStore returns a store of its own prefix in the local Redis,
// its keys deleted at cleanup. Without Redis it skips, or fails when CI
// is set.
func benchRedisStore(b *testing.B) *redisstore.Store {
	c := redis.NewClient(&redis.Options{Addr: benchRedisAddr, ContextTimeoutEnabled: true})
	b.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") != "" {
			b.Fatalf("Redis at %s does not answer (CI is set, so this fails): %v", benchRedisAddr, err)
		}
		b.Skipf("skipping: Redis at %s does not answer: %v", benchRedisAddr, err)
	}
	var r [6]byte
	_, _ = rand.Read(r[:])
	prefix := "ferrybench-" + hex.EncodeToString(r[:]) + ":"
	s := redisstore.New(c, &redisstore.Options{Prefix: prefix})
	b.Cleanup(func() {
		_ = s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if keys, _ := c.Keys(ctx, "{"+prefix+"}*").Result(); len(keys) > 0 {
			_ = c.Del(ctx, keys...).Err()
		}
	})
	return s
}
