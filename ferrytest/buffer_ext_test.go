package ferrytest_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry/ferrytest"
)

// Goroutines write and log into one Buffer while the test reads it; the
// race detector holds it to its promise, and nothing is lost.
func TestBufferConcurrentWrites(t *testing.T) {
	b := new(ferrytest.Buffer)
	log := b.Logger()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				log.Debug("step", "worker", i, "j", j)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := len(b.Records(t, "step")); got != 8*50 {
		t.Errorf("%d records, want %d", got, 8*50)
	}
}

// Records keeps the records with the message asked for, in order, or
// every record for an empty message; Reset empties the buffer.
func TestBufferRecords(t *testing.T) {
	b := new(ferrytest.Buffer)
	log := b.Logger()
	log.Info("tool call", "tool", "a")
	log.Warn("slow", "tool", "b")
	log.Info("tool call", "tool", "c")
	var tools []string
	for _, rec := range b.Records(t, "tool call") {
		tools = append(tools, fmt.Sprint(rec["tool"]))
	}
	if got := strings.Join(tools, ","); got != "a,c" {
		t.Errorf("tool call records for %s, want a,c", got)
	}
	if got := len(b.Records(t, "")); got != 3 {
		t.Errorf("%d records in all, want 3", got)
	}
	if got := b.Records(t, "no such message"); got != nil {
		t.Errorf("records of an absent message: %v", got)
	}
	b.Reset()
	if b.String() != "" || len(b.Records(t, "")) != 0 {
		t.Errorf("after Reset: %q", b.String())
	}
}

// A line that is not a JSON record fails the test with the line, rather
// than being skipped: a test reading records checks what it means to.
func TestBufferRecordsRefusesOtherText(t *testing.T) {
	b := new(ferrytest.Buffer)
	_, _ = b.Write([]byte("panic: boom\n"))
	errs := failures(t, func(tb testing.TB) { b.Records(tb, "") })
	if len(errs) != 1 || !strings.Contains(errs[0], `"panic: boom\n" is not a JSON record`) {
		t.Errorf("failures %q", errs)
	}
}
