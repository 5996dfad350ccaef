package ferry

// This file holds the limits on tool calls: a deadline per call, and per
// caller a number of calls in flight and a rate (a token bucket).

import (
	"context"
	"math"
	"net"
	"strconv"
	"sync"
	"time"
)

// The defaults of the limits on tool calls (see [ServerOptions]).
const (
	// DefaultCallTimeout is a tool call's deadline when
	// [ServerOptions.CallTimeout] is zero.
	DefaultCallTimeout = 60 * time.Second
	// DefaultMaxCallsPerCaller is how many tools/call requests one caller
	// may have in flight when [ServerOptions.MaxCallsPerCaller] is zero.
	DefaultMaxCallsPerCaller = 32
	// DefaultCallRate is the calls per second one caller may make on
	// average when [ServerOptions.CallRate] is zero.
	DefaultCallRate = 50.0
	// DefaultCallBurst is the calls one caller may make at once above the
	// rate when [ServerOptions.CallBurst] is zero.
	DefaultCallBurst = 100
	// MaxTrackedCallers is how many callers the server keeps a count and
	// a bucket for. When that many are tracked, a new caller first makes
	// the server forget the idle ones (no call in flight, bucket full:
	// nothing is lost), at most once a second; if none is idle, new
	// callers share one count and one bucket until some are.
	MaxTrackedCallers = 10_000
	// DefaultMaxJSONDepth is how deeply a request may nest arrays and
	// objects when [ServerOptions.MaxJSONDepth] is zero.
	DefaultMaxJSONDepth = 64
)

// callerKey identifies a caller for the limits: a principal's subject, an
// anonymous HTTP client's IP, or the anonymous stdio client.
type callerKey struct {
	kind uint8 // keyPrincipal, keyIP or keyStdio
	id   string
}

const (
	keyPrincipal uint8 = iota + 1
	keyIP
	keyStdio
)

// callerOf returns the key of the caller of ctx, whose request is r.
func callerOf(ctx context.Context, r *request) callerKey {
	if p, ok := PrincipalFromContext(ctx); ok {
		return callerKey{keyPrincipal, p.Subject}
	}
	if r.remote != "" {
		host, _, err := net.SplitHostPort(r.remote)
		if err != nil {
			host = r.remote
		}
		return callerKey{keyIP, host}
	}
	return callerKey{kind: keyStdio}
}

// callerState is one caller's calls in flight and token bucket.
type callerState struct {
	inflight int
	tokens   float64
	last     time.Time // when tokens was computed
}

// callLimits enforces [ServerOptions.MaxCallsPerCaller], CallRate and
// CallBurst. It is safe for concurrent use; each call costs one map
// lookup under its mutex, and no goroutine runs for it.
type callLimits struct {
	maxInflight int     // 0: no limit
	rate        float64 // tokens per second; 0: no rate limit
	burst       float64
	now         func() time.Time // the clock, replaced by tests

	mu        sync.Mutex // guards the fields below
	callers   map[callerKey]*callerState
	overflow  callerState // shared by callers beyond MaxTrackedCallers
	lastSweep time.Time
}

// newCallLimits returns the limits opts ask for, or nil when there are
// none.
func newCallLimits(opts *ServerOptions) *callLimits {
	l := &callLimits{now: time.Now, callers: map[callerKey]*callerState{}}
	switch n := opts.MaxCallsPerCaller; {
	case n == 0:
		l.maxInflight = DefaultMaxCallsPerCaller
	case n > 0:
		l.maxInflight = n
	}
	switch r := opts.CallRate; {
	case r == 0:
		l.rate = DefaultCallRate
	case r > 0:
		l.rate = r
	}
	l.burst = float64(opts.CallBurst)
	if opts.CallBurst <= 0 {
		l.burst = DefaultCallBurst
	}
	if l.maxInflight == 0 && l.rate == 0 {
		return nil
	}
	l.overflow.tokens = l.burst
	return l
}

// errTooManyAtOnce refuses a call beyond [ServerOptions.MaxCallsPerCaller].
var errTooManyAtOnce = Unavailable("too many calls at once, retry in a moment")

// admit takes a place for one call of key, or returns the refusal to
// answer with. release gives the place back.
func (l *callLimits) admit(key callerKey) (st *callerState, refusal error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st = l.stateLocked(key, now)
	if l.maxInflight > 0 && st.inflight >= l.maxInflight {
		return nil, errTooManyAtOnce
	}
	if l.rate > 0 {
		st.tokens = l.refilled(st, now)
		st.last = now
		if st.tokens < 1 {
			wait := math.Ceil((1 - st.tokens) / l.rate)
			return nil, Unavailable("too many calls, retry in " + strconv.Itoa(max(1, int(wait))) + "s")
		}
		st.tokens--
	}
	st.inflight++
	return st, nil
}

// release gives back the place st took in admit.
func (l *callLimits) release(st *callerState) {
	l.mu.Lock()
	st.inflight--
	l.mu.Unlock()
}

// refilled returns st's tokens at now.
func (l *callLimits) refilled(st *callerState, now time.Time) float64 {
	return min(l.burst, st.tokens+now.Sub(st.last).Seconds()*l.rate)
}

// stateLocked returns key's state, tracking it if there is room (after
// forgetting idle callers, at most once a second), and otherwise the
// shared overflow state. The caller holds l.mu.
func (l *callLimits) stateLocked(key callerKey, now time.Time) *callerState {
	if st, ok := l.callers[key]; ok {
		return st
	}
	if len(l.callers) >= MaxTrackedCallers && now.Sub(l.lastSweep) >= time.Second {
		l.lastSweep = now
		for k, st := range l.callers {
			if st.inflight == 0 && (l.rate == 0 || l.refilled(st, now) >= l.burst) {
				delete(l.callers, k)
			}
		}
	}
	if len(l.callers) >= MaxTrackedCallers {
		return &l.overflow
	}
	st := &callerState{tokens: l.burst, last: now}
	l.callers[key] = st
	return st
}

// timedOut is the result of a call past its deadline.
func (s *Server) timedOut(ctx context.Context) *ToolResult {
	setOutcome(ctx, outcomeTimedOut, RefusalUnavailable)
	return ErrorResult("unavailable: the tool timed out after " + formatTimeout(s.timeout))
}

// formatTimeout writes d in whole seconds when it is ("60s", not "1m0s").
func formatTimeout(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// toolRun is the outcome of a handler run on its own goroutine.
type toolRun struct {
	res     *ToolResult
	err     error
	expired bool // sent by the deadline's timer instead
}

// runner is a call under a deadline as the goroutine that runs its
// handler sees it, with the channel the handler's result goes back on.
// Nothing of it is pooled: a [testing/synctest] bubble may not share
// channels or timers with the world outside it.
type runner struct {
	// result takes the handler's outcome and the deadline's; it holds
	// both, so that neither sender waits.
	result chan toolRun
	ctx    callCtx // the handler's context, in the same allocation
	h      ToolHandler
	req    CallToolRequest
	l      *callLimits
	place  *callerState
}

// runTool runs the tool's handler chain under the call's deadline. The
// handler runs on another goroutine (see [callWorkers]), so that the call
// is answered at the deadline even when the handler ignores its context;
// it is left to finish (the log says so), and what it returns then is
// dropped. A handler that returns after its deadline with an error reads
// as timed out (see [Server.mapToolError]). When the request itself is
// cancelled, the handler is waited for, but no longer than its deadline.
// The handler's context ends when the call does, as a context from
// [context.WithTimeout] would.
//
// place, when not nil, is the caller's place taken by the call (see
// [callLimits.admit]): it is given back when the handler returns, so that
// a handler left running past its deadline still counts.
func (s *Server) runTool(ctx context.Context, e *toolEntry, req CallToolRequest, place *callerState) (*ToolResult, error) {
	if s.timeout <= 0 {
		if place != nil {
			defer s.limits.release(place)
		}
		return e.handler(ctx, &req)
	}
	rn := &runner{result: make(chan toolRun, 2), h: e.handler, req: req, l: s.limits, place: place}
	cc := &rn.ctx
	cc.init(ctx, time.Now().Add(s.timeout))
	timer := time.AfterFunc(s.timeout, rn.expire)
	defer timer.Stop()
	pool := s.workers
	if r := requestFrom(ctx); r != nil && r.workers != nil {
		pool = r.workers
	}
	pool.run(rn)
	select {
	case o := <-rn.result:
		if !o.expired {
			cc.end(context.Canceled, false)
			return o.res, o.err
		}
		cc.end(context.DeadlineExceeded, true)
	case <-ctx.Done():
		cc.end(ctx.Err(), false)
		// The request was cancelled: the handler should stop soon, and is
		// waited for until its deadline.
		if o := <-rn.result; !o.expired {
			return o.res, o.err
		}
	}
	s.logger.WarnContext(ctx, "tool call timed out; its handler is still running", "tool", req.Name, "timeout", s.timeout)
	return s.timedOut(ctx), nil
}

// expire tells the call that its deadline passed.
func (rn *runner) expire() { rn.result <- toolRun{expired: true} }

// exec runs the call's handler, gives the caller's place back, if it took
// one, and answers on rn.result.
func (rn *runner) exec() {
	res, err := rn.h(&rn.ctx, &rn.req)
	if rn.place != nil {
		rn.l.release(rn.place)
	}
	rn.result <- toolRun{res: res, err: err}
}

// callWorkerIdle is how long a goroutine of [callWorkers] waits for a
// call before it ends.
const callWorkerIdle = 30 * time.Second

// callWorkers are the goroutines that run the handlers of calls under a
// deadline. A goroutine is kept for the next call rather than started for
// each (whose stack would grow, by copying, on every call). It ends when
// the workers are closed (a stdio connection's, when [Server.Run]
// returns), or once a whole [callWorkerIdle] passed without a call (the
// HTTP handler's, which has no end), so that idle servers hold none. A
// goroutine running a handler past its deadline ends when the handler
// returns. Its zero value is not usable; see newCallWorkers.
type callWorkers struct {
	jobs chan *runner  // unbuffered: a send succeeds only when a goroutine is idle
	stop chan struct{} // closed by close
}

func newCallWorkers() *callWorkers {
	return &callWorkers{jobs: make(chan *runner), stop: make(chan struct{})}
}

// close ends the idle goroutines now and the others as their handlers
// return, without waiting for them.
func (w *callWorkers) close() { close(w.stop) }

// run hands rn to an idle goroutine, or starts one.
func (w *callWorkers) run(rn *runner) {
	select {
	case w.jobs <- rn:
	default:
		go w.loop(rn)
	}
}

func (w *callWorkers) loop(rn *runner) {
	idle := time.NewTimer(callWorkerIdle) // not reset per call: it checks, each period, that one came
	defer idle.Stop()
	for {
		rn.exec()
		used := true
		for rn = nil; rn == nil; {
			select {
			case rn = <-w.jobs:
			case <-idle.C:
				if !used {
					return
				}
				used = false
				idle.Reset(callWorkerIdle)
			case <-w.stop:
				return
			}
		}
	}
}
