package ferry

import (
	"context"
	"math"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// This file holds the per-caller limits on tool calls: a number of calls
// in flight and a rate (a token bucket). The deadline of each call is in
// tool_context.go.

// callerKey identifies a caller for the limits: a principal's issuer and
// subject, an anonymous HTTP client's network, or the anonymous stdio
// client. It holds the network as a [netip.Prefix], not its text, so that
// keying a call allocates nothing.
type callerKey struct {
	kind   uint8 // keyPrincipal, keyIP or keyStdio
	id     string
	issuer string // a principal's
	net    netip.Prefix
}

const (
	keyPrincipal uint8 = iota + 1
	keyIP
	keyStdio
)

// callerOf returns the key of the caller of ctx, whose request is r.
func callerOf(ctx context.Context, r *request) callerKey {
	if p, ok := PrincipalFromContext(ctx); ok {
		return callerKey{kind: keyPrincipal, id: p.Subject, issuer: p.Issuer}
	}
	if r.peer.remote != "" {
		return clientNetwork(r.peer.remote)
	}
	return callerKey{kind: keyStdio}
}

// clientNetwork returns the key of an anonymous HTTP client at remote: the
// network it is counted by, its IPv4 address or the /64 prefix of its IPv6
// address, since one client commonly holds a whole /64; or, for a remote
// address that is no IP, its host.
func clientNetwork(remote string) callerKey {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return callerKey{kind: keyIP, id: host}
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return callerKey{kind: keyIP, net: p}
}

// callerState is one caller's calls in flight and token bucket.
type callerState struct {
	inflight int
	tokens   float64
	last     time.Time // when tokens was computed
}

// callLimits enforces [Limits.MaxCallsPerCaller], CallRate and
// CallBurst. It is safe for concurrent use; each call costs one map
// lookup under its mutex, and no goroutine runs for it.
type callLimits struct {
	maxInflight int     // 0: no limit
	rate        float64 // tokens per second; 0: no rate limit
	burst       float64
	now         func() time.Time // the clock, replaced by tests
	// tooManyAtOnce refuses a call beyond maxInflight, naming the limit.
	tooManyAtOnce error

	mu        sync.Mutex // guards the fields below
	callers   map[callerKey]*callerState
	overflow  callerState // shared by callers beyond MaxTrackedCallers
	nextSweep time.Time   // no sweep of idle callers before then
}

// newCallLimits returns the limits opts ask for, or nil when there are
// none.
func newCallLimits(opts *ServerOptions) *callLimits {
	l := &callLimits{now: time.Now, callers: map[callerKey]*callerState{}}
	switch n := opts.Limits.MaxCallsPerCaller; {
	case n == 0:
		l.maxInflight = DefaultMaxCallsPerCaller
	case n > 0:
		l.maxInflight = n
	}
	switch r := opts.Limits.CallRate; {
	case r == 0:
		l.rate = DefaultCallRate
	case r > 0:
		l.rate = r
	}
	l.burst = float64(opts.Limits.CallBurst)
	if opts.Limits.CallBurst <= 0 {
		l.burst = DefaultCallBurst
	}
	if l.maxInflight == 0 && l.rate == 0 {
		return nil
	}
	l.overflow.tokens = l.burst
	l.tooManyAtOnce = Unavailable("too many calls at once: a caller may have " + strconv.Itoa(l.maxInflight) +
		" running (MaxCallsPerCaller); retry when one returns, or have the server's operator raise the limit (ferry serve: -max-calls-per-caller)")
	return l
}

// tooFast refuses a call beyond [Limits.CallRate] and CallBurst, naming
// them; wait is when the bucket holds a call again, in seconds.
func (l *callLimits) tooFast(wait float64) error {
	return Unavailable("too many calls: a caller may make " + strconv.FormatFloat(l.rate, 'g', -1, 64) + " a second, bursts of " +
		strconv.FormatFloat(l.burst, 'g', -1, 64) + " (CallRate, CallBurst); retry in " + strconv.Itoa(max(1, int(wait))) +
		"s, or have the server's operator raise the limit (ferry serve: -call-rate, -call-burst)")
}

// admit takes a place for one call of key, or returns the refusal to
// answer with. release gives the place back.
func (l *callLimits) admit(key callerKey) (st *callerState, refusal error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st = l.stateLocked(key, now)
	if l.maxInflight > 0 && st.inflight >= l.maxInflight {
		return nil, l.tooManyAtOnce
	}
	if l.rate > 0 {
		st.tokens = l.refilled(st, now)
		st.last = now
		if st.tokens < 1 {
			return nil, l.tooFast(math.Ceil((1 - st.tokens) / l.rate))
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

// stateLocked returns key's state, tracking it if there is room, and
// otherwise the shared overflow state. When MaxTrackedCallers are tracked,
// a new caller makes the server forget the idle ones first; a sweep that
// frees less than an eighth of the room makes the next wait a second, so
// that a sweep's cost stays a few map entries per new caller. The caller
// holds l.mu.
func (l *callLimits) stateLocked(key callerKey, now time.Time) *callerState {
	if st, ok := l.callers[key]; ok {
		return st
	}
	if len(l.callers) >= MaxTrackedCallers && !now.Before(l.nextSweep) {
		for k, st := range l.callers {
			if st.inflight == 0 && (l.rate == 0 || l.refilled(st, now) >= l.burst) {
				delete(l.callers, k)
			}
		}
		if len(l.callers) > MaxTrackedCallers-MaxTrackedCallers/8 {
			l.nextSweep = now.Add(time.Second)
		}
	}
	if len(l.callers) >= MaxTrackedCallers {
		return &l.overflow
	}
	st := &callerState{tokens: l.burst, last: now}
	l.callers[key] = st
	return st
}
