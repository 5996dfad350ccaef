package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/entity"
)

// callerLimits are the per-caller limits on tool calls that ferry serve
// applies (see [ferry.Limits.MaxCallsPerCaller]): a caller is an
// API key's or a token's subject, or an anonymous client's address.
type callerLimits struct {
	maxCalls int     // calls at once; 0: no limit
	rate     float64 // calls a second on average; 0: no limit
	burst    int     // calls at once above the rate
	// resultBytes bounds each call's result (ferry.Limits.MaxResultBytes);
	// 0: no bound. It is per call, not per caller, but set and said with
	// these.
	resultBytes int
}

// register adds the limit flags to fs, their defaults the server's.
func (l *callerLimits) register(fs *flag.FlagSet) {
	fs.IntVar(&l.maxCalls, "max-calls-per-caller", ferry.DefaultMaxCallsPerCaller, "the tool calls one caller may have running at once (0: no limit)")
	fs.Float64Var(&l.rate, "call-rate", ferry.DefaultCallRate, "the tool calls a second one caller may make on average (0: no limit)")
	fs.IntVar(&l.burst, "call-burst", ferry.DefaultCallBurst, "the tool calls one caller may make at once above -call-rate")
	fs.IntVar(&l.resultBytes, "max-result-bytes", ferry.DefaultMaxResultBytes,
		"the bytes of one tool result; a larger one is cut, lists at a whole row with hasMore set (0: no bound)")
}

// check returns the usage problem of a limit that means nothing, or nil.
func (l *callerLimits) check() error {
	switch {
	case l.maxCalls < 0:
		return fmt.Errorf("-max-calls-per-caller %d: give a whole number of at least 0 (0: no limit)", l.maxCalls)
	case l.rate < 0 || math.IsNaN(l.rate) || math.IsInf(l.rate, 0):
		return fmt.Errorf("-call-rate %v: give calls a second above 0, such as 50 (0: no limit)", l.rate)
	case l.burst < 1:
		return fmt.Errorf("-call-burst %d: give a whole number of at least 1", l.burst)
	case l.resultBytes < 0 || l.resultBytes > 0 && l.resultBytes < minResultBytes:
		return fmt.Errorf("-max-result-bytes %d: give at least %d (0: no bound)", l.resultBytes, minResultBytes)
	}
	return nil
}

// apply sets the limits on opts, where zero means the default and a
// negative value no limit.
func (l *callerLimits) apply(opts *ferry.ServerOptions) {
	lim := &opts.Limits
	lim.MaxCallsPerCaller, lim.CallRate, lim.CallBurst = l.maxCalls, l.rate, l.burst
	if l.maxCalls == 0 {
		lim.MaxCallsPerCaller = -1
	}
	if l.rate == 0 {
		lim.CallRate = -1
	}
	lim.MaxResultBytes = l.resultBytes
	if l.resultBytes == 0 {
		lim.MaxResultBytes = -1
	}
}

// minResultBytes is the smallest result bound ferry serve takes: room for
// a row and the notice that the result was cut.
const minResultBytes = 1000

// budget is the start-up line's account of the result bound.
func (l *callerLimits) budget() string {
	if l.resultBytes == 0 {
		return "none (-max-result-bytes)"
	}
	return strconv.Itoa(l.resultBytes) + " bytes per tool result; a larger one is cut, a list at a whole row with hasMore set (-max-result-bytes)"
}

// String is the start-up line's account of the limits.
func (l *callerLimits) String() string {
	return describeLimits(l.maxCalls, l.rate, l.burst) + " (-max-calls-per-caller, -call-rate, -call-burst)"
}

// describeLimits says what per-caller limits allow: "32 calls at once,
// 50 a second with bursts of 100"; a zero maxCalls or rate is no limit.
func describeLimits(maxCalls int, rate float64, burst int) string {
	switch {
	case maxCalls == 0 && rate == 0:
		return "none"
	case rate == 0:
		return callsAtOnce(maxCalls) + ", no rate limit"
	}
	r := strconv.FormatFloat(rate, 'g', -1, 64) + " a second with bursts of " + strconv.Itoa(burst)
	if maxCalls == 0 {
		return "any number of calls at once, " + r
	}
	return callsAtOnce(maxCalls) + ", " + r
}

// callsAtOnce says "1 call at once" or "32 calls at once".
func callsAtOnce(n int) string {
	if n == 1 {
		return "1 call at once"
	}
	return strconv.Itoa(n) + " calls at once"
}

// deadlines says how long a call may run: each call's deadline, its
// SQL's, and the tables with a timeout of their own (as "products 30s"),
// each with the setting that changes it.
func (c *serveConfig) deadlines(srcs []*source, tables []string) string {
	call := c.callTimeout
	if call == 0 {
		call = ferry.DefaultCallTimeout
	}
	describe := func(d time.Duration) string {
		if d == 0 {
			d = entity.DefaultTimeout
		}
		if d < 0 {
			return "none"
		}
		return d.String()
	}
	out := "each call " + describe(call) + " (-call-timeout), its SQL "
	if len(srcs) == 1 && srcs[0].conf == nil {
		out += describe(c.timeout) + " (-statement-timeout)"
	} else {
		sql := make([]string, len(srcs))
		for i, src := range srcs {
			sql[i] = src.name + " " + describe(src.timeout)
		}
		out += "per source (statement_timeout): " + strings.Join(sql, ", ")
	}
	if len(tables) > 0 {
		out += "; tables of their own (config timeout): " + strings.Join(tables, ", ")
	}
	return out
}
