package ferry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// readyBody is the readiness body.
type readyBody struct {
	Status string `json:"status"`
	Checks []struct {
		Name  string `json:"name"`
		OK    bool   `json:"ok"`
		Error string `json:"error"`
		Took  string `json:"took"`
	} `json:"checks"`
	CheckedAt string `json:"checkedAt"`
}

// probe sends method path to h and returns the status, the raw body and
// the readiness body read from it.
func probe(t *testing.T, h http.Handler, method, path string) (int, string, readyBody) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequestWithContext(t.Context(), method, "http://10.1.2.3:8080"+path, nil))
	var b readyBody
	if w.Code != http.StatusNotFound && w.Code != http.StatusMethodNotAllowed && method == http.MethodGet {
		if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
			t.Fatalf("%s %s: %d %q is not JSON: %v", method, path, w.Code, w.Body, err)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s %s: Content-Type %q", method, path, ct)
		}
	}
	return w.Code, w.Body.String(), b
}

// check returns the named check of a readiness body, failing if absent.
func (b readyBody) check(t *testing.T, name string) (ok bool, errText string) {
	t.Helper()
	for _, c := range b.Checks {
		if c.Name == name {
			return c.OK, c.Error
		}
	}
	t.Fatalf("no check %q in %+v", name, b)
	return false, ""
}

// switchable is a dependency a test turns off and on.
type switchable struct{ down atomic.Pointer[error] }

func (s *switchable) Check(context.Context) error {
	if err := s.down.Load(); err != nil {
		return *err
	}
	return nil
}

func (s *switchable) set(err error) {
	if err == nil {
		s.down.Store(nil)
		return
	}
	s.down.Store(&err)
}

// Liveness answers 200 whatever the dependencies do, from any Host (a
// kubelet probes the pod's IP); readiness fails while a dependency fails,
// naming it, and is back once it answers. Other methods and paths are
// refused.
func TestHealthLivenessAndReadiness(t *testing.T) {
	var db switchable
	h := ferry.NewHealthHandler(&ferry.HealthOptions{CacheFor: -1, Checks: []ferry.HealthCheck{{Name: "orders-db", Check: db.Check}}})

	for _, path := range []string{"/healthz", "/livez", "/probe/healthz"} {
		if code, body, b := probe(t, h, http.MethodGet, path); code != http.StatusOK || b.Status != "alive" {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
	code, body, b := probe(t, h, http.MethodGet, "/readyz")
	if ok, _ := b.check(t, "orders-db"); code != http.StatusOK || b.Status != "ready" || !ok {
		t.Fatalf("ready: %d %s", code, body)
	}
	if ok, _ := b.check(t, "drain"); !ok {
		t.Errorf("drain not ok: %s", body)
	}

	db.set(errors.New("dial tcp 10.0.0.5:5432: connect: connection refused"))
	code, body, b = probe(t, h, http.MethodGet, "/readyz")
	ok, why := b.check(t, "orders-db")
	if code != http.StatusServiceUnavailable || b.Status != "not ready" || ok || !strings.Contains(why, "connection refused") {
		t.Fatalf("with the database down: %d %s", code, body)
	}
	if code, body, b := probe(t, h, http.MethodGet, "/healthz"); code != http.StatusOK || b.Status != "alive" {
		t.Errorf("liveness with the database down: %d %s", code, body)
	}

	db.set(nil)
	if code, body, _ := probe(t, h, http.MethodGet, "/readyz"); code != http.StatusOK {
		t.Fatalf("once the database is back: %d %s", code, body)
	}

	if code, body, _ := probe(t, h, http.MethodHead, "/readyz"); code != http.StatusOK || body != "" {
		t.Errorf("HEAD /readyz: %d %q", code, body)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		if code, _, _ := probe(t, h, m, "/readyz"); code != http.StatusMethodNotAllowed {
			t.Errorf("%s /readyz: %d, want 405", m, code)
		}
	}
	if code, _, _ := probe(t, h, http.MethodGet, "/mcp"); code != http.StatusNotFound {
		t.Errorf("GET /mcp: %d, want 404", code)
	}
}

// Readiness fails as soon as the MCP handler begins to drain, while a
// call still runs and liveness still answers; StartDraining makes it
// fail before the drain.
func TestHealthReadinessFailsDuringTheDrain(t *testing.T) {
	s := newShutdownServer(t, &ferry.HTTPOptions{})
	defer s.ts.Close()
	h := ferry.NewHealthHandler(&ferry.HealthOptions{Handlers: []*ferry.HTTPHandler{s.h}})
	if code, body, _ := probe(t, h, http.MethodGet, "/readyz"); code != http.StatusOK {
		t.Fatalf("before the drain: %d %s", code, body)
	}
	body, hd := modernToolCall("1", "gate")
	call := openStream(t, "POST", s.ts.URL, "", body, hd...)
	<-s.started
	errc := s.shutdownAsync(10 * time.Second)
	s.waitRefusing(t)
	code, raw, b := probe(t, h, http.MethodGet, "/readyz")
	ok, why := b.check(t, "drain")
	if code != http.StatusServiceUnavailable || ok || !strings.Contains(why, "shutting down") {
		t.Fatalf("during the drain: %d %s", code, raw)
	}
	if code, raw, _ := probe(t, h, http.MethodGet, "/healthz"); code != http.StatusOK {
		t.Errorf("liveness during the drain: %d %s", code, raw)
	}
	close(s.release)
	if answer := call.next(); !strings.Contains(answer, "gate done") {
		t.Fatalf("the call's answer: %s", answer)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	h2 := ferry.NewHealthHandler(nil)
	if code, _, _ := probe(t, h2, http.MethodGet, "/readyz"); code != http.StatusOK {
		t.Fatalf("no options: %d", code)
	}
	h2.StartDraining()
	code, raw, b = probe(t, h2, http.MethodGet, "/readyz")
	if ok, why := b.check(t, "drain"); code != http.StatusServiceUnavailable || ok || !strings.Contains(why, "stopping") {
		t.Fatalf("after StartDraining: %d %s", code, raw)
	}
}

// The session stores of the handlers are checked, once per store: a
// memory store is always ready, a store that implements HealthChecker is
// asked and named by its String; the task store is listed when tasks
// are on.
func TestHealthChecksTheStores(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard, Tasks: &ferry.TaskOptions{}})
	mem := &ferry.MemorySessionStore{}
	remote := &checkedStore{MemorySessionStore: &ferry.MemorySessionStore{}}
	h := ferry.NewHealthHandler(&ferry.HealthOptions{CacheFor: -1, Handlers: []*ferry.HTTPHandler{
		ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: mem}),
		ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: mem}),
		ferry.NewHTTPHandler(ferry.NewServer("t", "1", nil), &ferry.HTTPOptions{Stateful: true, SessionStore: remote}),
		ferry.NewHTTPHandler(srv, nil), // stateless: no store
	}})
	code, raw, b := probe(t, h, http.MethodGet, "/readyz")
	var names []string
	for _, c := range b.Checks {
		names = append(names, c.Name)
	}
	if want := "drain, session store (memory), task store (memory), session store (remote)"; strings.Join(names, ", ") != want || code != http.StatusOK {
		t.Fatalf("checks %q (%d %s), want %s", names, code, raw, want)
	}
	remote.fail.Store(true)
	code, raw, b = probe(t, h, http.MethodGet, "/readyz")
	if ok, why := b.check(t, "session store (remote)"); code != http.StatusServiceUnavailable || ok || why != "remote: no route to host" {
		t.Fatalf("with the remote store down: %d %s", code, raw)
	}
}

// checkedStore is a session store that answers a health check.
type checkedStore struct {
	*ferry.MemorySessionStore
	fail atomic.Bool
}

func (s *checkedStore) String() string { return "remote" }

func (s *checkedStore) Check(context.Context) error {
	if s.fail.Load() {
		return errors.New("remote: no route to host")
	}
	return nil
}

// A check that outlives its timeout fails it in time, and is not called
// again while it runs; checks run at once, not in turn; a panicking check
// fails.
func TestHealthChecksAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var calls atomic.Int32
		h := ferry.NewHealthHandler(&ferry.HealthOptions{Timeout: 100 * time.Millisecond, CacheFor: -1, Checks: []ferry.HealthCheck{
			{Name: "stuck", Check: func(context.Context) error { calls.Add(1); <-release; return nil }}, // ignores its context
			{Name: "slow", Check: func(ctx context.Context) error {
				select {
				case <-time.After(80 * time.Millisecond):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}},
			{Name: "slow too", Check: func(context.Context) error { time.Sleep(80 * time.Millisecond); return nil }},
			{Name: "panics", Check: func(context.Context) error { panic("boom") }},
		}})
		start := time.Now()
		rep := h.Ready(t.Context())
		if took := time.Since(start); took != 100*time.Millisecond {
			t.Errorf("the round took %v, want the timeout, 100ms (the checks run at once)", took)
		}
		got := map[string]ferry.HealthState{}
		for _, s := range rep.Checks {
			got[s.Name] = s
		}
		if s := got["stuck"]; s.OK || s.Error != "did not answer within 100ms" || s.Took != 100*time.Millisecond {
			t.Errorf("stuck: %+v", s)
		}
		if !got["slow"].OK || !got["slow too"].OK {
			t.Errorf("slow checks within the timeout failed: %+v", rep.Checks)
		}
		if s := got["panics"]; s.OK || s.Error != "the check panicked: boom" {
			t.Errorf("panics: %+v", s)
		}
		rep = h.Ready(t.Context())
		if rep.Ready || rep.Checks[1].Error != "its previous check has not returned yet, past its timeout of 100ms" {
			t.Errorf("the second round: %+v", rep.Checks[1])
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("the stuck check was called %d times while it ran", n)
		}
		close(release)
		synctest.Wait()
		h.Ready(t.Context())
		if n := calls.Load(); n != 2 {
			t.Errorf("the stuck check was called %d times once it returned, want 2", n)
		}
	})
}

// A storm of probes costs one round of checks per CacheFor: probes that
// come while a round runs wait for it, and later ones reuse its results.
func TestHealthCachesTheResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		h := ferry.NewHealthHandler(&ferry.HealthOptions{Checks: []ferry.HealthCheck{{Name: "db", Check: func(context.Context) error {
			calls.Add(1)
			time.Sleep(10 * time.Millisecond)
			return nil
		}}}})
		var wg sync.WaitGroup
		for range 200 {
			wg.Go(func() {
				if code, raw, _ := probe(t, h, http.MethodGet, "/readyz"); code != http.StatusOK {
					t.Errorf("%d %s", code, raw)
				}
			})
		}
		wg.Wait()
		if n := calls.Load(); n != 1 {
			t.Fatalf("200 probes at once ran the check %d times, want 1", n)
		}
		time.Sleep(ferry.DefaultHealthCacheFor / 2)
		h.Ready(t.Context())
		if n := calls.Load(); n != 1 {
			t.Fatalf("a probe within CacheFor ran the check again (%d)", n)
		}
		time.Sleep(ferry.DefaultHealthCacheFor)
		h.Ready(t.Context())
		if n := calls.Load(); n != 2 {
			t.Fatalf("a probe after CacheFor: %d calls, want 2", n)
		}
	})
}

// A probe whose request ends before the round is not ready and says so;
// the round goes on for the next probe.
func TestHealthProbeGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := ferry.NewHealthHandler(&ferry.HealthOptions{Checks: []ferry.HealthCheck{{Name: "db", Check: func(context.Context) error {
			time.Sleep(time.Second)
			return nil
		}}}})
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		if rep := h.Ready(ctx); rep.Ready || !strings.Contains(rep.Checks[0].Error, "the probe gave up") {
			t.Errorf("%+v", rep)
		}
		if rep := h.Ready(t.Context()); !rep.Ready {
			t.Errorf("%+v", rep)
		}
	})
}

// The body shows no password, URL credentials or token an error quotes.
func TestHealthBodyHidesSecrets(t *testing.T) {
	secret := errors.New(`connecting to postgres://orders:hunter2@db.internal:5432/shop?sslmode=disable&password=hunter2: ` +
		`failed: host=db user=orders password='hunter2' dbname=shop; redis://:hunter2@cache:6379/0 said NOAUTH; ` +
		`Authorization: Bearer hunter2; api_key=hunter2`)
	h := ferry.NewHealthHandler(&ferry.HealthOptions{CacheFor: -1, Checks: []ferry.HealthCheck{{Name: "db", Check: func(context.Context) error { return secret }}}})
	_, raw, b := probe(t, h, http.MethodGet, "/readyz")
	if strings.Contains(raw, "hunter2") {
		t.Fatalf("the body shows the secret: %s", raw)
	}
	_, why := b.check(t, "db")
	for _, want := range []string{"postgres://xxxxx@db.internal:5432/shop", "user=orders", "NOAUTH"} {
		if !strings.Contains(why, want) {
			t.Errorf("the error %q lacks %q", why, want)
		}
	}
}

// Names a body could not show, or could confuse, are refused at once.
func TestHealthRefusesBadChecks(t *testing.T) {
	ok := func(context.Context) error { return nil }
	for _, tt := range []struct {
		name   string
		checks []ferry.HealthCheck
	}{
		{"empty name", []ferry.HealthCheck{{Check: ok}}},
		{"twice", []ferry.HealthCheck{{Name: "db", Check: ok}, {Name: "db", Check: ok}}},
		{"a store's name", []ferry.HealthCheck{{Name: "drain", Check: ok}}},
		{"nil check", []ferry.HealthCheck{{Name: "db"}}},
		{"control character", []ferry.HealthCheck{{Name: "db\n", Check: ok}}},
		{"long", []ferry.HealthCheck{{Name: strings.Repeat("d", 65), Check: ok}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "ferry: HealthOptions") {
					t.Errorf("recovered %v", r)
				}
			}()
			ferry.NewHealthHandler(&ferry.HealthOptions{Checks: tt.checks})
		})
	}
}

// Readiness logs when the failed checks change, not at every round.
func TestHealthLogsChanges(t *testing.T) {
	var db switchable
	var logs ferrytest.Buffer
	h := ferry.NewHealthHandler(&ferry.HealthOptions{CacheFor: -1, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Checks: []ferry.HealthCheck{{Name: "db", Check: db.Check}}})
	h.Ready(t.Context())
	db.set(errors.New("connection refused"))
	for range 3 {
		h.Ready(t.Context())
	}
	db.set(errors.New("no route to host"))
	h.Ready(t.Context())
	db.set(nil)
	h.Ready(t.Context())
	h.Ready(t.Context())
	got := logs.String()
	if strings.Count(got, "not ready") != 2 || !strings.Contains(got, `failed.db="connection refused"`) || !strings.Contains(got, `failed.db="no route to host"`) || strings.Count(got, "ready again") != 1 {
		t.Errorf("logs:\n%s", got)
	}
}
