package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// This file holds the health endpoints a platform probes: liveness
// (/healthz: the process serves) and readiness (/readyz: it should be sent
// requests). Readiness reads the drain of the MCP handlers it watches at
// every request, and runs the dependency checks (health_check.go) at most
// once per [HealthOptions.CacheFor]. Nothing here is on a request's path
// through [HTTPHandler]: the handlers are only read.

// The defaults of [HealthOptions].
const (
	// DefaultHealthTimeout bounds one readiness check.
	DefaultHealthTimeout = 2 * time.Second
	// DefaultHealthCacheFor is how long the results of the readiness
	// checks are reused.
	DefaultHealthCacheFor = time.Second
)

// HealthChecker is implemented by a dependency that can tell whether it
// answers: a [SessionStore] (redisstore's Store pings Redis) or a task
// store. [NewHealthHandler] finds it by a type assertion on the stores of
// the handlers it watches; a store that does not implement it (the memory
// stores) is taken as always ready. Check must be safe for concurrent use,
// return once ctx ends, and return an error whose text holds no secret
// (the readiness body shows it, with the secrets it recognizes masked).
type HealthChecker interface {
	Check(ctx context.Context) error
}

// HealthCheck is one dependency that readiness checks, such as a
// database: HealthCheck{Name: "orders-db", Check: db.PingContext}.
type HealthCheck struct {
	// Name names the dependency in the readiness body: a few printable
	// characters (at most 64 bytes), unique among the checks.
	Name string
	// Check returns nil when the dependency answers. It runs with a
	// context that ends after [HealthOptions.Timeout]; one that has not
	// returned by then fails the check, and is not called again until it
	// returns.
	Check func(ctx context.Context) error
}

// HealthOptions configures a [HealthHandler]. The zero value serves
// liveness, and readiness that is always ready until
// [HealthHandler.StartDraining].
type HealthOptions struct {
	// Handlers are the MCP handlers the process serves. Readiness fails
	// once any of them begins to shut down ([HTTPHandler.Shutdown]), and
	// checks the session store of each (once per store) and the task store
	// of its server, when the tasks extension is on.
	Handlers []*HTTPHandler
	// Checks are the other dependencies readiness checks: a database, an
	// upstream API.
	Checks []HealthCheck
	// Timeout bounds each check. If zero, [DefaultHealthTimeout].
	Timeout time.Duration
	// CacheFor is how long the checks' results answer the probes that
	// follow, so that many probes (several load balancers, a probe storm)
	// cost the dependencies one round of checks per CacheFor. Probes that
	// come while a round runs wait for it. The drain is read afresh by
	// every probe. If zero, [DefaultHealthCacheFor]; negative, results are
	// not reused once their round has ended.
	CacheFor time.Duration
	// Logger receives a warning when readiness fails, naming the checks
	// that failed, and a line when it is back. If nil, nothing is logged.
	Logger *slog.Logger
}

// HealthHandler serves a process's liveness and readiness over HTTP, for
// a platform's probes (a Kubernetes kubelet) and a load balancer's health
// checks. It is an [http.Handler] that serves, by the last element of the
// request's path:
//
//   - healthz (and livez): 200 with {"status":"alive"} while the process
//     serves, draining or not. It checks nothing: a process whose
//     database is down is not helped by a restart.
//   - readyz: 200 with {"status":"ready",...} when no watched handler is
//     draining and every dependency answers; otherwise 503 with
//     {"status":"not ready",...}. "checks" holds each dependency's name,
//     ok, the error sentence of a failed one and how long its check took.
//
// Other paths get 404, and methods other than GET and HEAD 405. The
// Host header is not checked, unlike [HTTPOptions.AllowedHosts]' for
// MCP: a kubelet probes the pod's IP address and a load balancer its
// own idea of the host, neither known in advance, and the endpoints
// change nothing and show nothing secret (the error sentences are masked
// of passwords and URL credentials). Mount it outside any authentication,
// and keep it off the paths a public proxy forwards.
//
// A HealthHandler is safe for concurrent use.
type HealthHandler struct {
	deps     []*healthDep
	handlers []*HTTPHandler
	timeout  time.Duration
	cacheFor time.Duration
	logger   *slog.Logger
	draining atomic.Bool // StartDraining was called

	mu      sync.Mutex // guards the fields below
	last    []HealthState
	lastAt  time.Time     // when last's round ended; zero before the first
	round   chan struct{} // closed when the round in flight ends; nil when none runs
	failing string        // the names and errors of the last round's failed checks, "" when none failed: a change is logged
}

// NewHealthHandler returns a handler of the process's health. opts may be
// nil; it is copied. It panics if a check has no name, a name used twice
// or a nil Check, or if a handler is nil: mistakes of the program.
func NewHealthHandler(opts *HealthOptions) *HealthHandler {
	var o HealthOptions
	if opts != nil {
		o = *opts
	}
	h := &HealthHandler{handlers: append([]*HTTPHandler(nil), o.Handlers...), timeout: o.Timeout, cacheFor: o.CacheFor, logger: o.Logger}
	if h.timeout <= 0 {
		h.timeout = DefaultHealthTimeout
	}
	if h.cacheFor == 0 {
		h.cacheFor = DefaultHealthCacheFor
	}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	h.deps = storeDeps(h.handlers)
	names := map[string]bool{drainCheck: true, giveUpCheck: true}
	for _, d := range h.deps {
		names[d.name] = true
	}
	for _, c := range o.Checks {
		if problem := checkName(c.Name); problem != "" {
			panic("ferry: HealthOptions.Checks: " + problem) //nolint:forbidigo // documented: a mistake of the program
		}
		if names[c.Name] || c.Check == nil {
			panic(fmt.Sprintf("ferry: HealthOptions.Checks: %q is named twice or has no Check", c.Name)) //nolint:forbidigo // documented
		}
		names[c.Name] = true
		h.deps = append(h.deps, &healthDep{name: c.Name, check: c.Check})
	}
	return h
}

// maxCheckName bounds a check's name.
const maxCheckName = 64

// checkName says what is wrong with a check's name, or "".
func checkName(name string) string {
	switch {
	case name == "":
		return "a check has no Name"
	case len(name) > maxCheckName || !utf8.ValidString(name):
		return fmt.Sprintf("the Name %.70q is over %d bytes or not UTF-8", name, maxCheckName)
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return fmt.Sprintf("the Name %q holds a control character", name)
	}
	return ""
}

// storeDeps returns the checks of the handlers' session stores, one per
// store, and of their servers' task stores, one per server.
func storeDeps(handlers []*HTTPHandler) []*healthDep {
	var deps []*healthDep
	var stores []SessionStore
	var servers []*Server
	for _, hh := range handlers {
		if hh == nil {
			panic("ferry: HealthOptions.Handlers holds a nil handler") //nolint:forbidigo // documented: a mistake of the program
		}
		if hh.store != nil && !containsStore(stores, hh.store) {
			stores = append(stores, hh.store)
			deps = append(deps, dependency("session store", hh.store))
		}
		if hh.srv.tasks != nil && !containsServer(servers, hh.srv) {
			servers = append(servers, hh.srv)
			deps = append(deps, dependency("task store", hh.srv.taskStore()))
		}
	}
	if len(stores) > 1 || len(servers) > 1 {
		numberDeps(deps)
	}
	return deps
}

// taskStore is what holds the server's tasks, for readiness: its
// [TaskOptions.Store], a [HealthChecker] when it can tell whether it
// answers (redisstore's pings Redis); the memory store is always ready.
func (s *Server) taskStore() any { return s.tasks.store }

// dependency is the check of a store: its Check when it implements
// [HealthChecker], named as the errors of the handler name it ("session
// store (redis)"); a store that cannot be checked is always ready.
func dependency(kind string, store any) *healthDep {
	d := &healthDep{name: kind}
	if s, ok := store.(fmt.Stringer); ok {
		d.name += " (" + s.String() + ")"
	} else if _, ok := store.(*MemoryTaskStore); ok {
		d.name += " (memory)"
	} else if _, ok := store.(*MemorySessionStore); ok {
		d.name += " (memory)"
	}
	if c, ok := store.(HealthChecker); ok {
		d.check = c.Check
	}
	return d
}

// numberDeps tells apart stores of one kind and name: "session store
// (redis) 2".
func numberDeps(deps []*healthDep) {
	seen := map[string]int{}
	for _, d := range deps {
		seen[d.name]++
		if n := seen[d.name]; n > 1 {
			d.name += fmt.Sprintf(" %d", n)
		}
	}
}

// containsStore reports whether stores holds s; stores of a type that
// cannot be compared are each their own.
func containsStore(stores []SessionStore, s SessionStore) bool {
	if !reflect.TypeOf(s).Comparable() {
		return false
	}
	for _, o := range stores {
		if reflect.TypeOf(o) == reflect.TypeOf(s) && o == s {
			return true
		}
	}
	return false
}

func containsServer(servers []*Server, s *Server) bool {
	for _, o := range servers {
		if o == s {
			return true
		}
	}
	return false
}

// Mount registers the handler on mux at /healthz and /readyz.
func (h *HealthHandler) Mount(mux *http.ServeMux) {
	mux.Handle("/healthz", h)
	mux.Handle("/readyz", h)
}

// StartDraining makes readiness fail from now on, before the MCP handlers'
// own drain begins: a replica that is to stop calls it, waits until its
// load balancer has seen it (the probes' period times their failure
// threshold), then drains with [ShutdownHTTPServer]. Liveness is not
// changed.
func (h *HealthHandler) StartDraining() { h.draining.Store(true) }

// HealthState is the state of one dependency in a [HealthReport].
type HealthState struct {
	// Name names the dependency.
	Name string `json:"name"`
	// OK is true when the dependency answered.
	OK bool `json:"ok"`
	// Error says why it is not OK, masked of the secrets Ferry
	// recognizes (passwords, URL credentials, tokens).
	Error string `json:"error,omitempty"`
	// Took is how long its check took; zero for what is not checked.
	Took time.Duration `json:"-"`
}

// MarshalJSON writes Took as a duration ("1.2ms").
func (s HealthState) MarshalJSON() ([]byte, error) {
	type state HealthState
	took := ""
	if s.Took > 0 {
		took = s.Took.Round(time.Microsecond).String()
	}
	return json.Marshal(struct {
		state
		Took string `json:"took,omitempty"`
	}{state(s), took})
}

// HealthReport is the answer of readiness.
type HealthReport struct {
	// Ready is true when the process is not draining and every check is OK.
	Ready bool
	// Checks are the dependencies in the order of the handlers and then
	// of [HealthOptions.Checks]; while the process drains, only the drain.
	Checks []HealthState
	// CheckedAt is when the checks ran (they may be reused, see
	// [HealthOptions.CacheFor]).
	CheckedAt time.Time
}

// The names of the report's own states: the drain's, and the one of a
// probe that gave up waiting for the checks.
const (
	drainCheck  = "drain"
	giveUpCheck = "checks"
)

// Ready returns the readiness of the process, as /readyz answers it: not
// ready while draining, without running the checks; otherwise the
// results of the latest round of checks, run now if they are older than
// [HealthOptions.CacheFor]. If ctx ends before the round does, the report
// is not ready and says so.
func (h *HealthHandler) Ready(ctx context.Context) HealthReport {
	if why := h.drainReason(); why != "" {
		return HealthReport{Checks: []HealthState{{Name: drainCheck, Error: why}}, CheckedAt: time.Now()}
	}
	states, at, err := h.results(ctx)
	if err != nil {
		return HealthReport{Checks: []HealthState{{Name: giveUpCheck, Error: "the probe gave up before the checks ended: " + err.Error()}}, CheckedAt: time.Now()}
	}
	r := HealthReport{Ready: true, Checks: append([]HealthState{{Name: drainCheck, OK: true}}, states...), CheckedAt: at}
	for _, s := range states {
		r.Ready = r.Ready && s.OK
	}
	return r
}

// drainReason says why the process drains, or "".
func (h *HealthHandler) drainReason() string {
	if h.draining.Load() {
		return "the server is stopping: it will shut down shortly"
	}
	for _, hh := range h.handlers {
		if hh.drain.refuses() {
			return "the server is shutting down: new requests are refused"
		}
	}
	return ""
}

// results returns the latest round's results, running a round when they
// are too old, and waiting for the round in flight.
func (h *HealthHandler) results(ctx context.Context) ([]HealthState, time.Time, error) {
	h.mu.Lock()
	if !h.lastAt.IsZero() && time.Since(h.lastAt) < h.cacheFor {
		defer h.mu.Unlock()
		return h.last, h.lastAt, nil
	}
	done := h.round
	if done == nil {
		done = make(chan struct{})
		h.round = done
		go h.runRound(done)
	}
	h.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, time.Time{}, ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last, h.lastAt, nil
}

// runRound runs every check at once, keeps their results and closes done.
// It returns within the timeout, whatever the checks do. It logs when the
// failed checks change, not at every round.
func (h *HealthHandler) runRound(done chan struct{}) {
	states := make([]HealthState, len(h.deps))
	var wg sync.WaitGroup
	for i, d := range h.deps {
		wg.Go(func() { states[i] = d.run(h.timeout) })
	}
	wg.Wait()
	var failed []any
	var failing strings.Builder
	for _, s := range states {
		if !s.OK {
			failed = append(failed, slog.String(s.Name, s.Error))
			fmt.Fprintf(&failing, "%q: %q\n", s.Name, s.Error)
		}
	}
	h.mu.Lock()
	h.last, h.lastAt, h.round = states, time.Now(), nil
	was := h.failing
	h.failing = failing.String()
	h.mu.Unlock()
	// Logged before the probes waiting on this round are answered, so
	// that the records come in the order of the rounds.
	switch {
	case failing.Len() > 0 && failing.String() != was:
		h.logger.Warn("ferry: not ready: a dependency does not answer", slog.Group("failed", failed...))
	case failing.Len() == 0 && was != "":
		h.logger.Info("ferry: ready again: every dependency answers")
	}
	close(done)
}

// ServeHTTP implements [http.Handler].
func (h *HealthHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	which := path.Base(r.URL.Path)
	switch {
	case which != "healthz" && which != "livez" && which != "readyz":
		http.NotFound(w, r)
		return
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var body any = struct {
		Status string `json:"status"`
	}{"alive"}
	status := http.StatusOK
	if which == "readyz" {
		rep := h.Ready(r.Context())
		word := "ready"
		if !rep.Ready {
			word, status = "not ready", http.StatusServiceUnavailable
		}
		body = struct {
			Status    string        `json:"status"`
			Checks    []HealthState `json:"checks"`
			CheckedAt string        `json:"checkedAt"`
		}{word, rep.Checks, rep.CheckedAt.UTC().Format(time.RFC3339Nano)}
	}
	data, _ := json.Marshal(body) // strings and booleans: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		_, _ = w.Write(append(data, '\n'))
	}
}
