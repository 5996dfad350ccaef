package redisstore

import "github.com/redis/go-redis/v9"

// The scripts share their arguments' layout: KEYS[1] is the session's key,
// KEYS[2] the sorted set of live sessions (id scored by when it expires,
// in Redis's milliseconds), ARGV[1] the session id and ARGV[2] the idle
// timeout in milliseconds. Each script reads the clock with TIME, so every
// replica's sessions age by the same clock: Redis's.

// scriptPrelude lets the scripts write after reading TIME on Redis before
// 5, which replicates scripts by their source; later versions replicate
// their effects anyway. It sets now to Redis's clock in milliseconds.
const scriptPrelude = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local idle = tonumber(ARGV[2])
`

// scriptTouch records a use of the session: its score, when its key
// expires, and the set's own expiry, which it only ever puts off, so that
// it is never sooner than any member's. The scores and the set's expiry
// hold when replicas sharing the set have other idle timeouts (a rolling
// deploy changing it): a short one does not drop a long one's sessions.
const scriptTouch = `
redis.call('ZADD', KEYS[2], now + idle, ARGV[1])
if redis.call('PTTL', KEYS[2]) < idle then redis.call('PEXPIRE', KEYS[2], idle) end
`

// createScript stores a new session (ARGV[3] its JSON) unless the store
// holds ARGV[4] live sessions already. Sessions whose expiry has passed
// are purged from the set before it is counted: the count is exact, and the set never holds more
// than the limit. It returns 1 when created, 0 when full, and -1 when the
// id is taken.
var createScript = redis.NewScript(scriptPrelude + `
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
if not redis.call('SET', KEYS[1], ARGV[3], 'NX', 'PX', idle) then return -1 end
` + scriptTouch + `
return 1
`)

// loadScript returns the session's JSON and counts the load as use, or nil
// when there is no such session.
var loadScript = redis.NewScript(scriptPrelude + `
local v = redis.call('GET', KEYS[1])
if not v then return false end
redis.call('PEXPIRE', KEYS[1], idle)
` + scriptTouch + `
return v
`)

// updateScript replaces the session's JSON with ARGV[4] if its SHA-1 is
// still ARGV[3], the digest of the JSON the update read: the
// compare-and-set of [Store.Update]. The digest spares sending the state
// read back to Redis. It returns 1 when replaced, 0 when the session
// changed or ended since it was read.
var updateScript = redis.NewScript(scriptPrelude + `
local v = redis.call('GET', KEYS[1])
if not v or redis.sha1hex(v) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[4], 'PX', idle)
` + scriptTouch + `
return 1
`)

// deleteScript forgets the session and returns how many keys it deleted:
// 0 when there was no such session.
var deleteScript = redis.NewScript(`
local n = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return n
`)
