package ferry

import (
	"bytes"
	"net/http"
	"os"
	"testing"
	"testing/synctest"
	"time"
)

// stuckWriter is a ResponseWriter whose client never reads: a write waits
// for the write deadline, and for ever without one (which synctest reports
// as a deadlock).
type stuckWriter struct {
	header   http.Header
	deadline time.Time
	block    chan struct{}
}

func (w *stuckWriter) Header() http.Header { return w.header }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Flush()              {}
func (w *stuckWriter) Write(b []byte) (int, error) {
	if w.deadline.IsZero() {
		<-w.block
	}
	time.Sleep(time.Until(w.deadline))
	return 0, os.ErrDeadlineExceeded
}
func (w *stuckWriter) SetWriteDeadline(t time.Time) error { w.deadline = t; return nil }

// An answer a client does not read ends after NotificationWriteTimeout, so
// that it does not hold its handler and its buffers for ever: a big plain
// JSON answer, a message before the result, and a streamed result.
func TestAnswersAClientDoesNotReadEnd(t *testing.T) {
	big := bytes.Repeat([]byte("x"), bigAnswer+1)
	cases := map[string]func(w *stuckWriter){
		"big JSON answer": func(w *stuckWriter) { writeAnswer(w, big) },
		"message before the result": func(w *stuckWriter) {
			sw := &streamWriter{w: w, sse: true}
			if err := sw.send([]byte(`{}`)); err == nil {
				t.Error("send to a client that does not read succeeded")
			}
		},
		"streamed result": func(w *stuckWriter) {
			sw := &streamWriter{w: w, sse: true, streamAll: true}
			sw.finish(http.StatusOK, []byte(`{}`))
		},
	}
	for name, write := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := &stuckWriter{header: http.Header{}, block: make(chan struct{})}
				start := time.Now()
				write(w)
				if got := time.Since(start); got != NotificationWriteTimeout {
					t.Errorf("the write gave up after %v, want %v", got, NotificationWriteTimeout)
				}
			})
		})
	}
}
