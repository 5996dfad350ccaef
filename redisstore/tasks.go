package redisstore

import (
	"context"
	"crypto/sha1" //nolint:gosec // the digest Redis scripts compute (redis.sha1hex): a change detector, as in Update
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
)

// Tasks is a [ferry.TaskStore] in Redis, made by [Store.Tasks]: replicas
// whose stores share a Redis and a prefix share their tasks, so that any
// of them answers tasks/get, tasks/update and tasks/cancel for a task
// running on another, and a cancellation through one reaches the replica
// running the task by pub/sub. It is safe for concurrent use.
//
// A task is one string key, {Prefix}task:ID, holding the JSON of its
// [ferry.TaskRecord] and expiring (PEXPIRE) at its Expires. Two sorted
// sets per owner count the owner's tasks for the caps: {Prefix}tasks:H
// scores each task kept by when it expires, {Prefix}running:H each task
// running by when its lease passes, H being a digest of the owner. Each
// change is published, as the task's id, on the channel Prefix+"tasks".
// The scores are the replicas' clocks in milliseconds: replicas whose
// clocks disagree by a good part of [ferry.TaskOptions.Lease] take each
// other's tasks for dead.
type Tasks struct {
	s       *Store
	prefix  string // "{Prefix}"
	channel string
}

// Tasks returns the store's tasks, sharing its client, prefix, timeout
// and lifetime: [Store.Close] ends its Watch subscriptions.
//
//	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{
//		Tasks: &ferry.TaskOptions{Store: store.Tasks()},
//	})
func (s *Store) Tasks() *Tasks {
	tag := s.prefix[:len(s.prefix)-len("session:")]
	return &Tasks{s: s, prefix: tag, channel: s.channel[:len(s.channel)-len("relay")] + "tasks"}
}

// String returns "redis".
func (t *Tasks) String() string { return "redis" }

// Check reports whether Redis answers, within [Options.Timeout].
func (t *Tasks) Check(ctx context.Context) error {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	if err := t.s.c.Ping(ctx).Err(); err != nil {
		return fail(ctx, "check", err)
	}
	return nil
}

// keys returns the keys of task id of owner: the task, its owner's kept
// set and running set.
func (t *Tasks) keys(owner, id string) []string {
	h := sha256.Sum256([]byte(owner))
	o := hex.EncodeToString(h[:16])
	return []string{t.prefix + "task:" + id, t.prefix + "tasks:" + o, t.prefix + "running:" + o}
}

// createTaskScript keeps a new task unless its owner is at a cap.
// KEYS: the task, the owner's kept set, its running set. ARGV: id, now
// (ms), JSON, TTL (ms), expiry (ms), lease (ms, 0 when not running),
// MaxRunning, MaxKept. It returns 1 when kept, 0 at a cap, -1 when the id
// is taken.
var createTaskScript = redis.NewScript(`
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then return 0 end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return 0 end
if not redis.call('SET', KEYS[1], ARGV[3], 'NX', 'PX', ttl) then return -1 end
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
if tonumber(ARGV[6]) > now then
	redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
	if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
end
return 1
`)

// updateTaskScript replaces the task's JSON with ARGV[4] if its SHA-1 is
// still ARGV[3], keeping its expiry, moves it in or out of the running
// set by its lease (ARGV[5], ms, 0 when not running; ARGV[2] is now) and
// publishes its id on ARGV[6]. It returns 1 when replaced, 0 when the
// task changed or expired since it was read.
var updateTaskScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or redis.sha1hex(v) ~= ARGV[3] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ttl)
if tonumber(ARGV[5]) > tonumber(ARGV[2]) then
	redis.call('ZADD', KEYS[3], ARGV[5], ARGV[1])
	if redis.call('PTTL', KEYS[3]) < ttl then redis.call('PEXPIRE', KEYS[3], ttl) end
else
	redis.call('ZREM', KEYS[3], ARGV[1])
end
redis.call('PUBLISH', ARGV[6], ARGV[1])
return 1
`)

// countTaskScript returns the owner's kept and running tasks at ARGV[1]
// (ms). KEYS: the kept set, the running set.
var countTaskScript = redis.NewScript(`
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return {redis.call('ZCARD', KEYS[1]), redis.call('ZCARD', KEYS[2])}
`)

// encodeTask returns the JSON of r, refusing a task that JSON would
// alter: bytes that are not UTF-8 become U+FFFD, so that the task of an
// owner "alice\xff" would be found by an owner "alice\ufffd".
func encodeTask(r *ferry.TaskRecord) ([]byte, error) {
	for _, f := range [...]struct{ name, v string }{{"ID", r.ID}, {"Owner", r.Owner}, {"Message", r.Message}} {
		if !utf8.ValidString(f.v) {
			return nil, fmt.Errorf("its %s %q is not valid UTF-8, which JSON cannot keep", f.name, f.v)
		}
	}
	return json.Marshal(r)
}

// leaseMS is the lease to score r by in the running set, 0 for a task
// that does not run.
func leaseMS(r *ferry.TaskRecord, now time.Time) int64 {
	if !r.Running(now) {
		return 0
	}
	return r.Lease.UnixMilli()
}

// Create implements [ferry.TaskStore].
func (t *Tasks) Create(ctx context.Context, r *ferry.TaskRecord, caps ferry.TaskCaps) error {
	v, err := encodeTask(r)
	if err != nil {
		return fmt.Errorf("redisstore: create task: %w", err)
	}
	now := time.Now()
	ttl := r.Expires.Sub(now).Milliseconds()
	if ttl <= 0 {
		return nil // expired already: kept, and forgotten at once
	}
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	n, err := createTaskScript.Run(ctx, t.s.c, t.keys(r.Owner, r.ID), r.ID, now.UnixMilli(), v, ttl,
		r.Expires.UnixMilli(), leaseMS(r, now), caps.MaxRunning, caps.MaxKept).Int()
	switch {
	case err != nil:
		return fail(ctx, "create task", err)
	case n == 0:
		return ferry.ErrTooManyTasks
	case n < 0:
		return fmt.Errorf("redisstore: create task: the id %q is taken", r.ID)
	}
	return nil
}

// get returns owner's task id and the JSON it was decoded from. Its
// errors are unprefixed; not found is [ferry.ErrTaskNotFound].
func (t *Tasks) get(ctx context.Context, owner, id string) (*ferry.TaskRecord, string, error) {
	v, err := t.s.c.Get(ctx, t.prefix+"task:"+id).Result()
	if errors.Is(err, redis.Nil) {
		return nil, "", ferry.ErrTaskNotFound
	}
	if err != nil {
		return nil, "", err
	}
	r := new(ferry.TaskRecord)
	if err := json.Unmarshal([]byte(v), r); err != nil {
		return nil, "", fmt.Errorf("decoding the value of key %q: %w", t.prefix+"task:"+id, err)
	}
	if r.Owner != owner || r.ID != id || !time.Now().Before(r.Expires) {
		return nil, "", ferry.ErrTaskNotFound
	}
	return r, v, nil
}

// Get implements [ferry.TaskStore].
func (t *Tasks) Get(ctx context.Context, owner, id string) (*ferry.TaskRecord, error) {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	r, _, err := t.get(ctx, owner, id)
	if err != nil {
		if errors.Is(err, ferry.ErrTaskNotFound) {
			return nil, err
		}
		return nil, fail(ctx, "get task", err)
	}
	return r, nil
}

// Update implements [ferry.TaskStore]: an optimistic compare-and-set,
// retried a bounded number of times when another update of the task got
// in first, calling f again each time.
func (t *Tasks) Update(ctx context.Context, owner, id string, f func(*ferry.TaskRecord) error) error {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	for attempt := range maxUpdateAttempts {
		r, old, err := t.get(ctx, owner, id)
		if errors.Is(err, ferry.ErrTaskNotFound) {
			return err
		}
		if err != nil {
			return fail(ctx, "update task", err)
		}
		fixed := *r
		if err := f(r); err != nil {
			return err
		}
		r.ID, r.Owner, r.Created, r.Expires = fixed.ID, fixed.Owner, fixed.Created, fixed.Expires
		v, err := encodeTask(r)
		if err != nil {
			return fmt.Errorf("redisstore: update task: %w", err)
		}
		sum := sha1.Sum([]byte(old)) //nolint:gosec // a change detector, not a signature
		now := time.Now()
		n, err := updateTaskScript.Run(ctx, t.s.c, t.keys(owner, id), id, now.UnixMilli(),
			hex.EncodeToString(sum[:]), v, leaseMS(r, now), t.channel).Int()
		if err != nil {
			return fail(ctx, "update task", err)
		}
		if n == 1 {
			return nil
		}
		if err := backoff(ctx, attempt); err != nil {
			return fail(ctx, "update task", err)
		}
	}
	return fmt.Errorf("redisstore: update task: gave up after %d attempts, each overtaken by another update of the task", maxUpdateAttempts)
}

// Count implements [ferry.TaskStore].
func (t *Tasks) Count(ctx context.Context, owner string) (kept, running int, err error) {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	k := t.keys(owner, "")
	n, err := countTaskScript.Run(ctx, t.s.c, k[1:], time.Now().UnixMilli()).Int64Slice()
	if err != nil {
		return 0, 0, fail(ctx, "count tasks", err)
	}
	if len(n) != 2 {
		return 0, 0, fmt.Errorf("redisstore: count tasks: the script answered %v", n)
	}
	return int(n[0]), int(n[1]), nil
}

// Watch implements [ferry.TaskStore] with a Redis pub/sub subscription
// of its own, as [Store.Subscribe] makes one: signals published while
// the connection is down are lost, which the contract allows.
func (t *Tasks) Watch(f func(id string)) (stop func()) {
	return t.s.subscribe(t.channel, func(msg []byte) { f(string(msg)) })
}
