package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// testAddr is the Redis the tests use; each test keeps to keys of its own
// prefix, so tests run in parallel, and in other checkouts at once.
const testAddr = "127.0.0.1:6379"

// testClient returns a client of the test Redis, closed at cleanup. With
// CI set, a Redis that does not answer fails the test; otherwise it skips.
func testClient(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: testAddr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s does not answer (CI is set, so this fails): %v", testAddr, err)
		}
		t.Skipf("skipping: Redis at %s does not answer (start redis-server to run this): %v", testAddr, err)
	}
	return c
}

// testPrefix returns a prefix no other test uses and deletes its keys at
// cleanup.
func testPrefix(t testing.TB, c redis.UniversalClient) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	prefix := "ferrytest-redisstore-" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		keys, _ := c.Keys(ctx, "{"+prefix+"}*").Result()
		if len(keys) > 0 {
			_ = c.Del(ctx, keys...).Err()
		}
	})
	return prefix
}

// newTestStore returns a store of its own prefix in the test Redis.
func newTestStore(t testing.TB, opts Options) *Store {
	t.Helper()
	c := testClient(t)
	if opts.Prefix == "" {
		opts.Prefix = testPrefix(t, c)
	}
	s := New(c, &opts)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSessionStoreContract(t *testing.T) {
	t.Parallel()
	ferrytest.RunSessionStoreTests(t, func(t *testing.T, idle time.Duration) ferry.SessionStore {
		return newTestStore(t, Options{IdleTimeout: idle})
	})
}

func state(id string) *ferry.SessionState {
	return &ferry.SessionState{ID: id, ProtocolVersion: ferry.Version20250618}
}

func TestMaxSessionsIsExact(t *testing.T) {
	t.Parallel()
	const max = 5
	s := newTestStore(t, Options{MaxSessions: max})
	// A second store on the same prefix counts the same sessions: the
	// limit holds across replicas.
	other := New(testClient(t), &Options{Prefix: strings.TrimSuffix(s.channel, "relay"), MaxSessions: max})
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 4*max)
	for i := range 4 * max {
		st := []*Store{s, other}[i%2]
		wg.Go(func() { errs <- st.Create(ctx, state(fmt.Sprint("s", i))) })
	}
	wg.Wait()
	close(errs)
	created, full := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			created++
		case errors.Is(err, ferry.ErrTooManySessions):
			full++
		default:
			t.Fatalf("Create = %v", err)
		}
	}
	if created != max || full != 3*max {
		t.Errorf("%d concurrent creates: %d created, %d refused as full; want %d and %d", 4*max, created, full, max, 3*max)
	}
	if err := s.Delete(ctx, "s-none"); !errors.Is(err, ferry.ErrSessionNotFound) {
		t.Errorf("Delete(unknown) = %v, want ErrSessionNotFound", err)
	}
}

func TestDeleteAndExpiryFreeRoom(t *testing.T) {
	t.Parallel()
	const idle = 300 * time.Millisecond
	s := newTestStore(t, Options{MaxSessions: 2, IdleTimeout: idle})
	ctx := t.Context()
	for _, id := range []string{"a", "b"} {
		if err := s.Create(ctx, state(id)); err != nil {
			t.Fatalf("Create(%s) = %v", id, err)
		}
	}
	if err := s.Create(ctx, state("c")); !errors.Is(err, ferry.ErrTooManySessions) {
		t.Fatalf("Create into a full store = %v, want ErrTooManySessions", err)
	}
	if err := s.Delete(ctx, "a"); err != nil {
		t.Fatalf("Delete = %v", err)
	}
	if err := s.Create(ctx, state("c")); err != nil {
		t.Fatalf("Create after a Delete = %v, want room", err)
	}
	time.Sleep(idle + 100*time.Millisecond) // b and c expire
	for _, id := range []string{"d", "e"} {
		if err := s.Create(ctx, state(id)); err != nil {
			t.Fatalf("Create(%s) once the others expired = %v, want room", id, err)
		}
	}
	n, err := s.c.ZCard(ctx, s.setKey).Result()
	if err != nil || n != 2 {
		t.Errorf("the set of live sessions holds %d members (err %v), want 2: expired ones are purged", n, err)
	}
}

func TestUpdateContentionAcrossClients(t *testing.T) {
	t.Parallel()
	a := newTestStore(t, Options{})
	b := New(testClient(t), &Options{Prefix: strings.TrimSuffix(a.channel, "relay")})
	ctx := t.Context()
	if err := a.Create(ctx, state("s")); err != nil {
		t.Fatal(err)
	}
	const n = 24
	var wg sync.WaitGroup
	var mu sync.Mutex
	calls := 0
	errs := make(chan error, 2*n)
	for i := range 2 * n {
		st := []*Store{a, b}[i%2]
		wg.Go(func() {
			errs <- st.Update(ctx, "s", func(s *ferry.SessionState) error {
				mu.Lock()
				calls++
				mu.Unlock()
				s.Subscriptions = append(s.Subscriptions, fmt.Sprint("file:///", i))
				return nil
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update = %v", err)
		}
	}
	got, err := b.Load(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Subscriptions) != 2*n {
		t.Errorf("after %d concurrent updates from two clients, %d subscriptions, want %d", 2*n, len(got.Subscriptions), 2*n)
	}
	if calls <= 2*n {
		t.Logf("f ran %d times for %d updates: no conflict happened", calls, 2*n)
	} else {
		t.Logf("f ran %d times for %d updates: conflicts were retried", calls, 2*n)
	}
}

func TestUpdateGivesUpUnderEndlessConflict(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{})
	ctx := t.Context()
	if err := s.Create(ctx, state("s")); err != nil {
		t.Fatal(err)
	}
	calls := 0
	// f changes the session behind Update's back each time, so every
	// compare-and-set fails.
	err := s.Update(ctx, "s", func(st *ferry.SessionState) error {
		calls++
		v := fmt.Sprintf(`{"id":"s","protocolVersion":%q,"logLevel":"l%d"}`, ferry.Version20250618, calls)
		return s.c.Set(ctx, s.prefix+"s", v, time.Minute).Err()
	})
	if err == nil || !strings.Contains(err.Error(), "gave up after") {
		t.Fatalf("Update under endless conflict = %v, want an error saying it gave up", err)
	}
	if calls != maxUpdateAttempts {
		t.Errorf("f ran %d times, want %d", calls, maxUpdateAttempts)
	}
}

func TestUndecodableValueIsAnError(t *testing.T) {
	t.Parallel()
	s := newTestStore(t, Options{})
	ctx := t.Context()
	if err := s.c.Set(ctx, s.prefix+"bad", "not json", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Load(ctx, "bad")
	if err == nil || !strings.Contains(err.Error(), s.prefix+"bad") || !strings.HasPrefix(err.Error(), "redisstore: load session: ") {
		t.Errorf("Load of an undecodable value = %v, want an error naming the key", err)
	}
	err = s.Update(ctx, "bad", func(*ferry.SessionState) error { t.Error("f called"); return nil })
	if err == nil || errors.Is(err, ferry.ErrSessionNotFound) {
		t.Errorf("Update of an undecodable value = %v, want a store error", err)
	}
}

func TestErrorsNameTheOperation(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1: every call fails at once.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	s := New(c, nil)
	ctx := t.Context()
	_, loadErr := s.Load(ctx, "x")
	tests := []struct {
		op  string
		err error
	}{
		{"create", s.Create(ctx, state("x"))},
		{"load", loadErr},
		{"update", s.Update(ctx, "x", func(*ferry.SessionState) error { return nil })},
		{"delete", s.Delete(ctx, "x")},
	}
	for _, tt := range tests {
		if want := "redisstore: " + tt.op + " session: "; tt.err == nil || !strings.HasPrefix(tt.err.Error(), want) {
			t.Errorf("%s with Redis down = %v, want an error starting %q", tt.op, tt.err, want)
		}
		if errors.Is(tt.err, ferry.ErrSessionNotFound) || errors.Is(tt.err, ferry.ErrTooManySessions) {
			t.Errorf("%s with Redis down = %v, a sentinel: the handler would not call it a store failure", tt.op, tt.err)
		}
	}
	if got := s.String(); got != "redis" {
		t.Errorf("String() = %q, want redis", got)
	}
}

func TestPrefixWithBracePanics(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testAddr})
	defer func() { _ = c.Close() }()
	defer func() {
		if recover() == nil {
			t.Error("New with a brace in Prefix did not panic")
		}
	}()
	New(c, &Options{Prefix: "a{b}"})
}

func TestDialErrorKeepsThePasswordOut(t *testing.T) {
	t.Parallel()
	// The error is logged by the caller: a URL it cannot parse must not
	// carry the password there.
	for _, url := range []string{
		"redis://user:s3cret@127.0.0.1:badport/0",
		"redis://user:s3cret@127.0.0.1:6379/abc",
		"redis://:s3cret@[::1/0",
	} {
		s, err := Dial(t.Context(), url, nil)
		if err == nil {
			_ = s.Close()
			t.Errorf("Dial(%q) = nil error, want a parse error", url)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("Dial of a malformed URL = %q: it names the password", err)
		}
		if !strings.HasPrefix(err.Error(), "redisstore: parsing the Redis URL: ") {
			t.Errorf("Dial of a malformed URL = %q, want it to say the URL did not parse", err)
		}
	}
}

func TestStateJSONWouldAlterIsRefused(t *testing.T) {
	t.Parallel()
	// JSON turns bytes that are not UTF-8 into U+FFFD, so a Subject of
	// "alice\xff" would come back as "alice\ufffd": its own caller would
	// lose the session, and a caller whose subject is "alice\ufffd" (or
	// "alice\xfe") would be served it. The store must keep the state
	// exactly, or refuse it.
	s := newTestStore(t, Options{})
	ctx := t.Context()
	// check loads id after a call that returned err: given is what the
	// call stored if it succeeded, before what is there if it failed (nil:
	// no session).
	check := func(what string, err error, id string, given, before *ferry.SessionState) {
		t.Helper()
		want := given
		if err != nil {
			want = before
		}
		got, lerr := s.Load(ctx, id)
		switch {
		case want == nil && errors.Is(lerr, ferry.ErrSessionNotFound):
		case want != nil && lerr == nil && got.ID == want.ID && got.Subject == want.Subject:
		default:
			t.Errorf("%s = %v, then Load = %+v, %v: the state was neither kept as given nor refused", what, err, got, lerr)
		}
	}
	bad := state("a")
	bad.Subject = "alice\xff"
	check(`Create with Subject "alice\xff"`, s.Create(ctx, bad), "a", bad, nil)
	check(`Create with ID "b\xff"`, s.Create(ctx, state("b\xff")), "b\xff", state("b\xff"), nil)
	if err := s.Create(ctx, state("c")); err != nil {
		t.Fatal(err)
	}
	err := s.Update(ctx, "c", func(st *ferry.SessionState) error {
		st.Subject = "bob\xfe"
		return nil
	})
	given := state("c")
	given.Subject = "bob\xfe"
	check(`Update setting Subject "bob\xfe"`, err, "c", given, state("c"))
}

func TestEncodeChecksEveryStringOfTheState(t *testing.T) {
	t.Parallel()
	// A string field added to ferry.SessionState must be checked too.
	typ := reflect.TypeFor[ferry.SessionState]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		st := state("s")
		v := reflect.ValueOf(st).Elem().Field(i)
		switch {
		case f.Type.Kind() == reflect.String:
			v.SetString("\xff")
		case f.Type == reflect.TypeFor[[]string]():
			v.Set(reflect.ValueOf([]string{"ok", "\xff"}))
		default:
			continue
		}
		if _, err := encode(st); err == nil {
			t.Errorf("encode of a state whose %s is not UTF-8 = nil error, want a refusal", f.Name)
		}
	}
}

func TestReplicasWithOtherIdleTimeoutsKeepTheLimit(t *testing.T) {
	t.Parallel()
	// During a rolling deploy that changes IdleTimeout, replicas sharing
	// a prefix disagree on it. One with a short timeout must not drop the
	// sessions of one with a long timeout from the count, by purging them
	// early or by letting the sorted set expire while they live.
	const short = 300 * time.Millisecond
	long := newTestStore(t, Options{IdleTimeout: time.Minute, MaxSessions: 2})
	prefix := strings.TrimSuffix(long.channel, "relay")
	brief := New(testClient(t), &Options{Prefix: prefix, IdleTimeout: short, MaxSessions: 2})
	ctx := t.Context()
	if err := long.Create(ctx, state("long")); err != nil {
		t.Fatal(err)
	}
	if err := brief.Create(ctx, state("brief")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(short + 200*time.Millisecond) // "brief" expires, "long" lives
	if _, err := long.c.Get(ctx, long.prefix+"long").Result(); err != nil {
		t.Fatalf("the long-lived session is gone: %v", err)
	}
	created := 0
	for _, id := range []string{"x", "y", "z"} {
		if err := brief.Create(ctx, state(id)); err == nil {
			created++
		} else if !errors.Is(err, ferry.ErrTooManySessions) {
			t.Fatal(err)
		}
	}
	if created != 1 {
		t.Errorf("with one live session of two allowed, %d of 3 creates succeeded, want 1", created)
	}
}

func TestOddIDsStayInTheirKey(t *testing.T) {
	t.Parallel()
	// A session id reaches the store from the Mcp-Session-Id header
	// (Load, Update, Delete) and from any caller of Create. Whatever its
	// bytes, it names one key under the store's own prefix and one member
	// of its set, and reaches nothing else.
	s := newTestStore(t, Options{MaxSessions: 100})
	victim := newTestStore(t, Options{}) // another prefix on the same Redis
	ctx := t.Context()
	if err := victim.Create(ctx, state("v")); err != nil {
		t.Fatal(err)
	}
	vprefix := strings.TrimSuffix(victim.channel, "relay")
	ids := []string{
		"", "}", "{", "{x}", "*", "?", "[a-z]", "\x00", " ", "\r\n", "s", "sessions", ":",
		"../" + vprefix, "}" + vprefix + "session:v", "{" + vprefix + "}session:v",
		"'); redis.call('FLUSHALL') --", "]]", strings.Repeat("x", 1<<16),
	}
	for _, id := range ids {
		if _, err := s.Load(ctx, id); !errors.Is(err, ferry.ErrSessionNotFound) {
			t.Errorf("Load(%.40q) before Create = %v, want ErrSessionNotFound", id, err)
		}
		if err := s.Create(ctx, state(id)); err != nil {
			t.Fatalf("Create(%.40q) = %v", id, err)
		}
		got, err := s.Load(ctx, id)
		if err != nil || got.ID != id {
			t.Errorf("Load(%.40q) = %v, %v", id, got, err)
		}
	}
	keys, err := s.c.Keys(ctx, "*"+strings.TrimSuffix(s.channel, "relay")+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(ids)+1 {
		t.Errorf("%d keys of the store for %d sessions, want one each and the set", len(keys), len(ids))
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, s.prefix) && k != s.setKey {
			t.Errorf("key %.60q is outside the store's keys", k)
		}
	}
	if n, err := s.c.ZCard(ctx, s.setKey).Result(); err != nil || n != int64(len(ids)) {
		t.Errorf("the set holds %d members (%v), want %d", n, err, len(ids))
	}
	for _, id := range ids {
		if err := s.Delete(ctx, id); err != nil {
			t.Errorf("Delete(%.40q) = %v", id, err)
		}
	}
	if n, err := s.c.Exists(ctx, s.setKey).Result(); err != nil || n != 0 {
		t.Errorf("after every Delete the set exists (%d, %v): it holds members of no session", n, err)
	}
	if _, err := victim.Load(ctx, "v"); err != nil {
		t.Errorf("the other prefix's session after the odd ids: %v", err)
	}
}

// countingHook counts the commands a client sends and the bytes of their
// arguments.
type countingHook struct {
	mu           sync.Mutex // guards the fields below
	calls, bytes int
}

func (h *countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.calls++
		for _, a := range cmd.Args() {
			switch a := a.(type) {
			case string:
				h.bytes += len(a)
			case []byte:
				h.bytes += len(a)
			}
		}
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

func TestUpdateDoesNotSendBackTheStateItRead(t *testing.T) {
	t.Parallel()
	// Updates racing for one session retry, and each attempt's cost is
	// what a client hammering its own session multiplies: an attempt
	// should send Redis the state it writes, not the one it read too.
	c := testClient(t)
	s := New(c, &Options{Prefix: testPrefix(t, c)})
	ctx := t.Context()
	st := state("s")
	for i := range 16 {
		st.Subscriptions = append(st.Subscriptions, fmt.Sprintf("file:///%d/%s", i, strings.Repeat("x", 2000)))
	}
	if err := s.Create(ctx, st); err != nil {
		t.Fatal(err)
	}
	// Load the scripts, so that no EVAL fallback is counted.
	if err := s.Update(ctx, "s", func(*ferry.SessionState) error { return nil }); err != nil {
		t.Fatal(err)
	}
	size, err := c.StrLen(ctx, s.prefix+"s").Result()
	if err != nil {
		t.Fatal(err)
	}
	other := testClient(t) // the rival update, uncounted
	h := new(countingHook)
	c.AddHook(h)
	calls := 0
	err = s.Update(ctx, "s", func(st *ferry.SessionState) error {
		calls++
		if calls == 1 {
			// Another update gets in first.
			rival := *st
			rival.LogLevel = "debug"
			v, err := json.Marshal(&rival)
			if err != nil {
				return err
			}
			if err := other.Set(ctx, s.prefix+"s", v, time.Minute).Err(); err != nil {
				return err
			}
		}
		st.Stream = "h1"
		return nil
	})
	if err != nil || calls != 2 {
		t.Fatalf("Update = %v with f run %d times, want nil and 2", err, calls)
	}
	h.mu.Lock()
	n, sent := h.calls, h.bytes
	h.mu.Unlock()
	t.Logf("an Update retried once: %d calls, %d bytes sent, state %d bytes", n, sent, size)
	if limit := 3 * int(size); sent > limit {
		t.Errorf("an Update retried once sent %d bytes for a %d-byte state, want at most %d: one state per attempt", sent, size, limit)
	}
	got, err := s.Load(ctx, "s")
	if err != nil || got.LogLevel != "debug" || got.Stream != "h1" {
		t.Errorf("after the retried Update, Load = %+v, %v; want the rival's log level and the Update's stream", got, err)
	}
}
