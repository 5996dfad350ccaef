package ferry

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
)

// This file holds one readiness check's run, bounded whatever the check
// does, and the masking of the secrets its error may quote.

// healthDep is one dependency readiness checks.
type healthDep struct {
	name  string
	check func(ctx context.Context) error // nil: always ready (a memory store)
	// running is set while a call of check is running: one that outlived
	// its timeout is not called again until it returns, so that a check
	// that ignores its context does not pile up goroutines.
	running atomic.Bool
}

// run checks the dependency within timeout, and returns its state.
func (d *healthDep) run(timeout time.Duration) HealthState {
	st := HealthState{Name: d.name}
	if d.check == nil {
		st.OK = true
		return st
	}
	if !d.running.CompareAndSwap(false, true) {
		st.Error = "its previous check has not returned yet, past its timeout of " + timeout.String()
		return st
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := callCheck(ctx, d.check)
		d.running.Store(false) // before the answer: the next round may call it
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done: // it answered as the time ran out
		default:
			err = ctx.Err()
		}
	}
	st.Took = time.Since(start)
	switch {
	case err == nil:
		st.OK = true
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		st.Error = "did not answer within " + timeout.String()
	default:
		st.Error = healthError(err.Error())
	}
	return st
}

// callCheck calls check, turning a panic into an error.
func callCheck(ctx context.Context, check func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the check panicked: %v", r)
		}
	}()
	return check(ctx)
}

// maxHealthError bounds the error sentence of one check in the body.
const maxHealthError = 300

// secretPatterns match what an error may quote that must not be shown:
// the credentials of a URL (scheme://user:password@host), and the value
// of a key=value or key: value pair whose key names a secret (a DSN's
// password=..., a query's token=..., an Authorization header's token).
var secretPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@\s]*@`),
		regexp.MustCompile(`(?i)((?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)[A-Za-z_-]*\s*[=:]\s*)(?:'[^']*'|"[^"]*"|[^\s&;,)]+)`),
		regexp.MustCompile(`(?i)(bearer\s+|basic\s+)[A-Za-z0-9._~+/=-]+`),
	}
})

// healthError is an error's text as the readiness body shows it: secrets
// masked, one line of printable characters, cut at maxHealthError bytes.
func healthError(msg string) string {
	for i, re := range secretPatterns() {
		if i == 0 {
			msg = re.ReplaceAllString(msg, "${1}xxxxx@")
		} else {
			msg = re.ReplaceAllString(msg, "${1}xxxxx")
		}
	}
	msg = strings.Join(strings.FieldsFunc(strings.ToValidUTF8(msg, "?"), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
	if len(msg) > maxHealthError {
		cut := maxHealthError
		for cut > 0 && !isRuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// isRuneStart reports whether b begins a UTF-8 encoded rune.
func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
