// Package redisstore keeps the stateful sessions of a [ferry.HTTPHandler]
// in Redis, so that several replicas serve one session: it implements
// [ferry.SessionStore], and [ferry.SessionRelay] with Redis pub/sub. Its
// [Store.Tasks] keeps the tasks of the tasks extension
// ([ferry.TaskStore]), so that replicas serve each other's tasks.
//
//	store, err := redisstore.Dial(ctx, "redis://127.0.0.1:6379/0", &redisstore.Options{Prefix: "orders:"})
//	if err != nil {
//		return err
//	}
//	defer store.Close()
//	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
//
// Every replica of a service dials the same Redis (database included) with
// the same [Options.Prefix], and its server has the same
// [ferry.ServerOptions.SigningKeys]; docs/replicas.md in the repository
// says why, and what a load balancer in front needs.
//
// # Keys
//
// A session is one string key, {Prefix}session:ID, holding the JSON of its
// [ferry.SessionState] and expiring (PEXPIRE, in milliseconds) once unused
// for [Options.IdleTimeout]. A sorted set, {Prefix}sessions, scores every
// session by when it expires, so that [Store.Create] counts the live
// sessions exactly, even while replicas disagree on IdleTimeout (each use
// gives a session the timeout of the replica that used it). The braces
// are a hash tag: all of a store's keys live in one Cluster slot, which
// the Lua scripts that change them together need.
// Relay messages go on the channel Prefix+"relay".
//
// The prefix decides who shares: stores with one prefix share sessions and
// relay, whatever service they serve, and stores with different prefixes
// never see each other, with nothing to report it. A replica whose store
// has another prefix than the rest answers 404 ("session not found") to the
// sessions the others made, and misses their changes. Give each service a
// prefix of its own: every store that sets none uses [DefaultPrefix].
//
// A session takes about 200 bytes of Redis memory, and at most about 80
// KiB: the state of a client that subscribed to all it may
// ([ferry.MaxSubscriptionBytes] of URIs). So a store holds at most about
// [Options.MaxSessions] x 80 KiB, some 800 MB at the default limit, which
// anyone who may open sessions can fill: choose the limit, and Redis's
// maxmemory, by that bound.
//
// Each operation is one Lua script, so it is atomic: Create, Load and
// Delete run once, and Update is an optimistic compare-and-set, retried a
// bounded number of times when another update of the session got in first.
//
// # Why go-redis
//
// The store takes a [redis.UniversalClient] of github.com/redis/go-redis/v9:
// one type covers a single node, Sentinel and Cluster, its API takes a
// context first, its pub/sub reconnects and resubscribes by itself, and it
// is the client users already configure. valkey-go is built around RESP3
// auto-pipelining and client-side caching, which a session store does not
// need.
//
// # Failures
//
// Every call is bounded by [Options.Timeout] unless its context ends
// sooner, so a Redis that is down makes requests fail quickly rather than
// hang: the handler answers them with an internal error naming the store
// ("redis"). go-redis reconnects on later calls, and the relay's
// subscription is restored by itself once Redis is back. [Store.Check]
// pings Redis, so that a [ferry.HealthHandler] watching a handler of the
// store answers not ready while Redis is down. The store logs
// nothing; go-redis reports failed dials through its own logger, which
// redis.SetLogger replaces.
//
// The scripts need Redis 3.2 or later (tested with 7.0). Every key of the
// store has an expiry, so a maxmemory policy that evicts keys may take
// them early: an evicted session is lost, and an evicted sorted set
// undercounts live sessions until they are next used. Give Redis the
// memory, or the policy noeviction, under which writes fail instead.
package redisstore
