package ferry

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A burst past the rate limit is refused with the wait the bucket needs,
// in whole seconds, without running the tool; callers have buckets of
// their own (principals by subject, anonymous HTTP callers by IP), and a
// bucket refills with time.
func TestRateLimitRefusesBurstWithRetrySeconds(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Limits: Limits{CallRate: 0.5, CallBurst: 3}, Logger: slog.New(slog.DiscardHandler)})
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	srv.limits.now = clock.now
	runs := 0
	srv.AddTool(Tool{Name: "ping", Description: "Pings."}, func(context.Context, *CallToolRequest) (*ToolResult, error) {
		runs++
		return NewResult(Text("pong")), nil
	})
	h := NewHTTPHandler(srv, nil)
	call := func(remote, user string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		r := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
		r.RemoteAddr = remote
		r.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ping"} {
			r.Header.Set(k, v)
		}
		if user != "" {
			r = r.WithContext(WithPrincipal(r.Context(), &Principal{Subject: user}))
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
		return w.Body.String()
	}
	const limited = `"text":"unavailable: too many calls: a caller may make 0.5 a second, bursts of 3 (CallRate, CallBurst); ` +
		`retry in 2s, or have the server's operator raise the limit (ferry serve: -call-rate, -call-burst)"}],"isError":true`
	for i := range 3 {
		if got := call("192.0.2.1:1000", ""); !strings.Contains(got, "pong") {
			t.Fatalf("call %d: %s", i, got)
		}
	}
	if got := call("192.0.2.1:2000", ""); !strings.Contains(got, limited) { // another port, the same IP
		t.Errorf("call 4: %s; want %s", got, limited)
	}
	if runs != 3 {
		t.Errorf("%d runs, want 3", runs)
	}
	if got := call("192.0.2.2:1000", ""); !strings.Contains(got, "pong") {
		t.Errorf("another IP: %s", got)
	}
	if got := call("192.0.2.1:1000", "ann"); !strings.Contains(got, "pong") {
		t.Errorf("a principal from the limited IP: %s", got)
	}
	clock.advance(1500 * time.Millisecond) // 0.75 of a token: one more second to wait
	if got := call("192.0.2.1:1000", ""); !strings.Contains(got, "retry in 1s") {
		t.Errorf("after 1.5s: %s", got)
	}
	clock.advance(500 * time.Millisecond)
	if got := call("192.0.2.1:1000", ""); !strings.Contains(got, "pong") {
		t.Errorf("after 2s: %s", got)
	}
}

// The limits track at most MaxTrackedCallers callers: beyond them new
// callers share one bucket, and idle callers (nothing in flight, bucket
// full) are forgotten, at most once a second, to make room.
func TestCallLimitsStayBounded(t *testing.T) {
	l := newCallLimits(&ServerOptions{Limits: Limits{CallRate: 1, CallBurst: 1}})
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	l.now = clock.now
	for i := range MaxTrackedCallers {
		st, err := l.admit(callerKey{kind: keyPrincipal, id: strconv.Itoa(i)})
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
		l.release(st)
	}
	if _, err := l.admit(callerKey{kind: keyPrincipal, id: "new-1"}); err != nil {
		t.Fatalf("the first caller beyond the bound: %v", err)
	}
	if _, err := l.admit(callerKey{kind: keyPrincipal, id: "new-2"}); err == nil || !strings.Contains(err.Error(), "retry in 1s") {
		t.Errorf("a second caller beyond the bound shares the first's bucket; got %v", err)
	}
	if len(l.callers) != MaxTrackedCallers {
		t.Errorf("%d callers tracked", len(l.callers))
	}
	clock.advance(2 * time.Second) // every bucket is full again
	if _, err := l.admit(callerKey{kind: keyPrincipal, id: "new-3"}); err != nil {
		t.Fatalf("after the idle were forgotten: %v", err)
	}
	if len(l.callers) != 1 {
		t.Errorf("%d callers tracked after the sweep, want 1", len(l.callers))
	}
}

// A limit set negative is off; zero means the default.
func TestCallLimitsDefaultsAndOff(t *testing.T) {
	if l := newCallLimits(&ServerOptions{Limits: Limits{MaxCallsPerCaller: -1, CallRate: -1}}); l != nil {
		t.Errorf("limits off: %+v", l)
	}
	l := newCallLimits(&ServerOptions{})
	if l.maxInflight != DefaultMaxCallsPerCaller || l.rate != DefaultCallRate || l.burst != DefaultCallBurst {
		t.Errorf("defaults: %+v", l)
	}
	srv := NewServer("s", "1", &ServerOptions{Limits: Limits{CallTimeout: -1}})
	if srv.timeout > 0 {
		t.Errorf("timeout off: %v", srv.timeout)
	}
	if srv := NewServer("s", "1", nil); srv.timeout != DefaultCallTimeout || srv.maxDepth != DefaultMaxJSONDepth {
		t.Errorf("defaults: %v %d", srv.timeout, srv.maxDepth)
	}
}

// A call under the default CallTimeout keeps no goroutine and no timer
// once answered, so a testing/synctest bubble that calls tools through the
// HTTP handler ends cleanly; time in the bubble brings the deadline.
func TestCallTimeoutInASynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
		srv.AddTool(Tool{Name: "wait", Description: "Waits for its context."}, func(ctx context.Context, _ *CallToolRequest) (*ToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		srv.AddTool(Tool{Name: "ping", Description: "Pings."}, func(context.Context, *CallToolRequest) (*ToolResult, error) {
			return NewResult(Text("pong")), nil
		})
		h := NewHTTPHandler(srv, nil)
		call := func(name string) string {
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			r := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(body))
			r.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name} {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Body.String()
		}
		if got := call("ping"); !strings.Contains(got, "pong") {
			t.Errorf("ping: %s", got)
		}
		start := time.Now()
		if got := call("wait"); !strings.Contains(got, "timed out after 60s") {
			t.Errorf("wait: %s", got)
		}
		if d := time.Since(start); d != DefaultCallTimeout {
			t.Errorf("answered after %v, want %v", d, DefaultCallTimeout)
		}
	})
}

// Keying an anonymous HTTP caller for the limits allocates nothing, since
// it runs on every tools/call; addresses of one IPv6 /64, and an IPv4
// address written mapped or not, are one caller.
func TestCallerOfAllocatesNothing(t *testing.T) {
	for _, remote := range []string{"192.0.2.1:1234", "[2001:db8::1]:443"} {
		r := &request{peer: peer{remote: remote}}
		l := newCallLimits(&ServerOptions{})
		if n := testing.AllocsPerRun(100, func() { l.lastRemote = ""; _ = l.callerOf(r) }); n != 0 {
			t.Errorf("callerOf(%s): %v allocations", remote, n)
		}
	}
	for _, same := range [][2]string{
		{"[2001:db8::1]:443", "[2001:db8::ffff:1]:80"},
		{"192.0.2.1:1234", "[::ffff:192.0.2.1]:1"},
	} {
		if a, b := clientNetwork(same[0]), clientNetwork(same[1]); a != b {
			t.Errorf("%s and %s are two callers: %v, %v", same[0], same[1], a, b)
		}
	}
	if a, b := clientNetwork("192.0.2.1:1"), clientNetwork("192.0.2.2:1"); a == b {
		t.Errorf("two IPv4 addresses are one caller: %v", a)
	}
}

// Principals are one caller for the limits only when both their issuers
// and their subjects are equal.
func TestCallerOfKeysAPrincipalByIssuerAndSubject(t *testing.T) {
	key := func(p *Principal) callerKey { return newCallLimits(&ServerOptions{}).callerOf(&request{caller: p}) }
	alice := key(&Principal{Issuer: "api-key", Subject: "alice"})
	if alice != key(&Principal{Issuer: "api-key", Subject: "alice", Roles: []string{"admin"}}) {
		t.Error("one issuer's alice is two callers")
	}
	for _, p := range []*Principal{{Issuer: "https://idp", Subject: "alice"}, {Subject: "alice"}} {
		if key(p) == alice {
			t.Errorf("%+v is the API key's alice", p)
		}
	}
}
