package ferrytest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Buffer is a byte buffer that a server's goroutines, a logger or a
// command's output may write to while the test reads it. It is safe for
// concurrent use; the zero value is an empty buffer ready to use.
//
// [Buffer.Logger] writes a server's log into it as JSON lines, and
// [Buffer.Records] reads them back:
//
//	logs := new(ferrytest.Buffer)
//	srv := ferry.NewServer("orders", "1.0.0", &ferry.ServerOptions{Logger: logs.Logger()})
//	// … call the tools …
//	if got := logs.Records(t, "tool failed unexpectedly"); len(got) != 1 {
//		t.Errorf("logged %d failures, want 1", len(got))
//	}
type Buffer struct {
	mu  sync.Mutex // guards buf
	buf bytes.Buffer
}

// Write appends p to the buffer. It never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what has been written since the buffer was made or last
// reset.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Reset empties the buffer.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// Logger returns a logger that writes every record, from the debug level
// up, into b as one line of JSON (see [slog.JSONHandler]).
func (b *Buffer) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Records returns the JSON records in b whose message ("msg") is msg, in
// the order they were written, each decoded into a map; an empty msg
// returns every record. It fails t on a line that is not a JSON object:
// b holds what a JSON handler such as [Buffer.Logger]'s wrote.
func (b *Buffer) Records(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("ferrytest: log line %q is not a JSON record: %v", line, err)
		}
		if msg == "" || rec[slog.MessageKey] == msg {
			out = append(out, rec)
		}
	}
	return out
}
