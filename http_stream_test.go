package ferry

import (
	"bytes"
	"net/http"
	"net/http/httptest"
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
		"big JSON answer": func(w *stuckWriter) { writeAnswer(w, httptest.NewRequest("POST", "/", nil), big) },
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

// slowWriter is a ResponseWriter whose client reads steadily but slowly:
// each write takes 5 s, and fails if it ends past the write deadline.
type slowWriter struct {
	header   http.Header
	deadline time.Time
	written  int
}

func (w *slowWriter) Header() http.Header { return w.header }
func (w *slowWriter) WriteHeader(int)     {}
func (w *slowWriter) Flush()              {}
func (w *slowWriter) Write(b []byte) (int, error) {
	time.Sleep(5 * time.Second)
	if !w.deadline.IsZero() && time.Now().After(w.deadline) {
		return 0, os.ErrDeadlineExceeded
	}
	w.written += len(b)
	return len(b), nil
}
func (w *slowWriter) SetWriteDeadline(t time.Time) error { w.deadline = t; return nil }

// The deadline bounds how long a client leaves a chunk unread, not how long
// a big answer takes: a client that keeps reading gets all of it, however
// long that takes, and the deadline is lifted after.
func TestBigAnswerToAClientThatKeepsReadingIsWhole(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &slowWriter{header: http.Header{}}
		body := bytes.Repeat([]byte("x"), 4*writeChunk)
		writeAnswer(w, httptest.NewRequest("POST", "/", nil), body)
		if w.written != len(body) {
			t.Errorf("wrote %d of %d bytes", w.written, len(body))
		}
		if !w.deadline.IsZero() {
			t.Errorf("the deadline %v was left on the connection", w.deadline)
		}
	})
}
