package ferrytest_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// fakeT is a testing.TB that records the failures of a kit under test
// instead of failing the test, so that a test can check that the kit
// fails when it should.
type fakeT struct {
	testing.TB
	mu   sync.Mutex // guards errs
	errs []string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// failures runs fn with a fakeT and returns what it reported.
func failures(t *testing.T, fn func(tb testing.TB)) []string {
	t.Helper()
	f := &fakeT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.errs
}
