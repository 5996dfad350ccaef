package redisstore

import (
	"context"
	"crypto/sha1" //nolint:gosec // the digest Redis scripts compute (redis.sha1hex): a change detector, see Update
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	neturl "net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
)

// DefaultPrefix is the key and channel prefix when [Options.Prefix] is
// empty.
const DefaultPrefix = "ferry:"

// DefaultTimeout bounds one store call when [Options.Timeout] is zero.
const DefaultTimeout = 2 * time.Second

// maxUpdateAttempts bounds the compare-and-set attempts of one
// [Store.Update]. Each failed attempt means another update of the session
// succeeded, so it is reached only under heavy contention on one session.
const maxUpdateAttempts = 64

// Options configures a [Store]. The zero value, like a nil *Options, gives
// the defaults.
type Options struct {
	// Prefix starts every key and the relay channel, so that stores with
	// different prefixes share a Redis without seeing each other. It is
	// the keys' hash tag, so it must not contain '{' or '}'. If empty,
	// [DefaultPrefix].
	Prefix string
	// IdleTimeout is how long a session may go unused before it expires,
	// enforced by Redis (PEXPIRE, in milliseconds). If zero,
	// [ferry.DefaultSessionIdleTimeout].
	IdleTimeout time.Duration
	// MaxSessions is the most live sessions the store holds, counted
	// across every replica that shares the prefix; Create returns
	// [ferry.ErrTooManySessions] beyond it. If zero,
	// [ferry.DefaultMaxSessions].
	MaxSessions int
	// Timeout bounds one store call when its context has no earlier
	// deadline, so that a Redis that does not answer fails a request
	// rather than hanging it. If zero, [DefaultTimeout]. A client given to
	// [New] enforces it on its sockets only with ContextTimeoutEnabled set
	// (clients made by [Dial] have it); otherwise its own ReadTimeout and
	// WriteTimeout bound a call that Redis leaves unanswered.
	Timeout time.Duration
}

// Store is a [ferry.SessionStore] and [ferry.SessionRelay] in Redis. It is
// safe for concurrent use; several Stores, in one process or many, that
// share a Redis and a prefix share their sessions and relay.
type Store struct {
	c       redis.UniversalClient
	owned   bool // Close closes c: Dial made it
	prefix  string
	setKey  string // the sorted set of live sessions
	channel string // the relay's channel
	idleMS  int64
	max     int
	timeout time.Duration
	expired *timeoutError // the cause of a call's context ending at timeout

	mu     sync.Mutex // guards subs and closed
	subs   map[*subscription]struct{}
	closed bool
}

// New returns a store that keeps sessions with c. The caller keeps c:
// [Store.Close] does not close it. New panics if opts.Prefix contains a
// brace.
func New(c redis.UniversalClient, opts *Options) *Store {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(o.Prefix, "{}") {
		// A programmer error at construction; Dial reports it as an error.
		panic("redisstore: Options.Prefix must not contain '{' or '}': it is the keys' hash tag") //nolint:forbidigo // see above
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = ferry.DefaultSessionIdleTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = ferry.DefaultMaxSessions
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	tag := "{" + o.Prefix + "}"
	return &Store{
		c:       c,
		prefix:  tag + "session:",
		setKey:  tag + "sessions",
		channel: o.Prefix + "relay",
		idleMS:  max(o.IdleTimeout.Milliseconds(), 1),
		max:     o.MaxSessions,
		timeout: o.Timeout,
		expired: &timeoutError{o.Timeout},
	}
}

// Dial connects to the Redis at url (redis://[user:password@]host:port/db,
// or rediss:// for TLS, as [redis.ParseURL] reads it), checks that it
// answers within opts.Timeout, and returns a store that owns the client:
// [Store.Close] closes it. The client's calls end at their context's
// deadline (ContextTimeoutEnabled).
func Dial(ctx context.Context, url string, opts *Options) (*Store, error) {
	if opts != nil && strings.ContainsAny(opts.Prefix, "{}") {
		return nil, errors.New("redisstore: Options.Prefix must not contain '{' or '}': it is the keys' hash tag")
	}
	ro, err := redis.ParseURL(url)
	if err != nil {
		// A *url.Error quotes the whole URL, password included, and the
		// error ends up in a log: keep only what went wrong.
		if ue, ok := errors.AsType[*neturl.Error](err); ok {
			err = ue.Err
		}
		return nil, fmt.Errorf("redisstore: parsing the Redis URL: %w", err)
	}
	ro.ContextTimeoutEnabled = true
	s := New(redis.NewClient(ro), opts)
	s.owned = true
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.c.Ping(ctx).Err(); err != nil {
		_ = s.c.Close()
		return nil, fail(ctx, "connecting to Redis at "+ro.Addr, err)
	}
	return s, nil
}

// Close stops the store's relay subscriptions, waiting at most
// [Options.Timeout] for them, and, if [Dial] made the client, closes it. The store must not be used after Close; closing it
// again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	subs := s.subs
	s.subs = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for sub := range subs {
		wg.Go(sub.stop) // each waits at most the timeout: together, not in turn
	}
	wg.Wait()
	if s.owned {
		if err := s.c.Close(); err != nil {
			return fmt.Errorf("redisstore: closing the client: %w", err)
		}
	}
	return nil
}

// String returns "redis", the name the handler gives the store in the
// errors clients see. It names no address.
func (s *Store) String() string { return "redis" }

// Check pings Redis, bounded by [Options.Timeout], and returns nil when it
// answers: it implements [ferry.HealthChecker], so that a
// [ferry.HealthHandler] watching a handler of this store is ready only
// while Redis answers. The error names no password.
func (s *Store) Check(ctx context.Context) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if err := s.c.Ping(ctx).Err(); err != nil {
		return fail(ctx, "ping", err)
	}
	return nil
}

// timeoutError is the cause of a call's context ending at the store's
// timeout, so that the error says so rather than only "context deadline
// exceeded".
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string {
	return fmt.Sprintf("Redis did not answer within %v (Options.Timeout)", e.d)
}

// bound returns ctx with the store's timeout, unless ctx ends sooner.
func (s *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= s.timeout {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, s.timeout, s.expired)
}

// fail names the operation that failed, and the store's timeout when that
// is what ended it, except in the sentinels callers branch on.
func fail(ctx context.Context, op string, err error) error {
	if errors.Is(err, ferry.ErrSessionNotFound) {
		return ferry.ErrSessionNotFound
	}
	var te *timeoutError
	if errors.Is(err, context.DeadlineExceeded) && errors.As(context.Cause(ctx), &te) {
		return fmt.Errorf("redisstore: %s: %w: %w", op, te, err)
	}
	return fmt.Errorf("redisstore: %s: %w", op, err)
}

func (s *Store) keys(id string) []string { return []string{s.prefix + id, s.setKey} }

// Create implements [ferry.SessionStore]. It returns
// [ferry.ErrTooManySessions] when the store holds [Options.MaxSessions]
// live sessions.
func (s *Store) Create(ctx context.Context, st *ferry.SessionState) error {
	v, err := encode(st)
	if err != nil {
		return fmt.Errorf("redisstore: create session: encoding the state: %w", err)
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	n, err := createScript.Run(ctx, s.c, s.keys(st.ID), st.ID, s.idleMS, v, s.max).Int()
	switch {
	case err != nil:
		return fail(ctx, "create session", err)
	case n == 0:
		return ferry.ErrTooManySessions
	case n < 0:
		return fmt.Errorf("redisstore: create session: the id %q is taken", st.ID)
	}
	return nil
}

// encode returns the JSON of st, refusing a state that JSON would alter:
// it turns bytes that are not UTF-8 into U+FFFD, so that a Subject of
// "alice\xff" would come back as "alice\ufffd", the subject of another
// caller, who would be served the session.
func encode(st *ferry.SessionState) ([]byte, error) {
	fields := [...]struct{ name, v string }{
		{"ID", st.ID}, {"ProtocolVersion", st.ProtocolVersion}, {"LogLevel", st.LogLevel},
		{"Subject", st.Subject}, {"Issuer", st.Issuer}, {"Stream", st.Stream},
	}
	for _, f := range fields {
		if !utf8.ValidString(f.v) {
			return nil, fmt.Errorf("its %s %q is not valid UTF-8, which JSON cannot keep", f.name, f.v)
		}
	}
	for i, uri := range st.Subscriptions {
		if !utf8.ValidString(uri) {
			return nil, fmt.Errorf("its Subscriptions[%d] %q is not valid UTF-8, which JSON cannot keep", i, uri)
		}
	}
	for i, g := range st.Toolsets {
		if !utf8.ValidString(g) {
			return nil, fmt.Errorf("its Toolsets[%d] %q is not valid UTF-8, which JSON cannot keep", i, g)
		}
	}
	return json.Marshal(st)
}

// Load implements [ferry.SessionStore]. It counts as use of the session.
func (s *Store) Load(ctx context.Context, id string) (*ferry.SessionState, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	st, _, err := s.load(ctx, id)
	if err != nil {
		return nil, fail(ctx, "load session", err)
	}
	return st, nil
}

// load returns the session's state and the JSON it was decoded from,
// marking the session used. Its errors are unprefixed; not found is
// [ferry.ErrSessionNotFound].
func (s *Store) load(ctx context.Context, id string) (*ferry.SessionState, string, error) {
	v, err := loadScript.Run(ctx, s.c, s.keys(id), id, s.idleMS).Text()
	if errors.Is(err, redis.Nil) {
		return nil, "", ferry.ErrSessionNotFound
	}
	if err != nil {
		return nil, "", err
	}
	st := new(ferry.SessionState)
	if err := json.Unmarshal([]byte(v), st); err != nil {
		return nil, "", fmt.Errorf("decoding the value of key %q: %w", s.prefix+id, err)
	}
	return st, v, nil
}

// Update implements [ferry.SessionStore]. It counts as use of the session.
// It reads the session, calls f and writes the result if the session has
// not changed since it was read; if it has, it tries again, calling f
// again, up to a bound. f's error is returned as it is, with nothing
// written.
func (s *Store) Update(ctx context.Context, id string, f func(*ferry.SessionState) error) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	for attempt := range maxUpdateAttempts {
		st, old, err := s.load(ctx, id)
		if err != nil {
			return fail(ctx, "update session", err)
		}
		if err := f(st); err != nil {
			return err
		}
		st.ID = id
		v, err := encode(st)
		if err != nil {
			return fmt.Errorf("redisstore: update session: encoding the state: %w", err)
		}
		// The script compares digests: the state read need not cross the
		// network again. A collision could only make an update of one's
		// own session overwrite another update of it.
		sum := sha1.Sum([]byte(old)) //nolint:gosec // a change detector, not a signature: see above
		n, err := updateScript.Run(ctx, s.c, s.keys(id), id, s.idleMS, hex.EncodeToString(sum[:]), v).Int()
		if err != nil {
			return fail(ctx, "update session", err)
		}
		if n == 1 {
			return nil
		}
		if err := backoff(ctx, attempt); err != nil {
			return fail(ctx, "update session", err)
		}
	}
	return fmt.Errorf("redisstore: update session: gave up after %d attempts, each overtaken by another update of the session", maxUpdateAttempts)
}

// backoff waits a random time that grows with the attempt, so that
// updates racing for one session spread out, or until ctx ends.
func backoff(ctx context.Context, attempt int) error {
	limit := int64(min(attempt+1, 20)) * int64(time.Millisecond)
	d := time.Duration(rand.Int64N(limit)) //nolint:gosec // jitter, not a secret
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Delete implements [ferry.SessionStore].
func (s *Store) Delete(ctx context.Context, id string) error {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	n, err := deleteScript.Run(ctx, s.c, s.keys(id), id).Int()
	if err != nil {
		return fail(ctx, "delete session", err)
	}
	if n == 0 {
		return ferry.ErrSessionNotFound
	}
	return nil
}
