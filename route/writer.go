package route

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// ErrResponseTooLarge is what a route handler's Write returns for the part
// of a response beyond [Options.MaxResponseBytes]: the answer is cut there,
// and the model is told.
var ErrResponseTooLarge = errors.New("route: the response is larger than the binding keeps")

// errReleased is what a write after the handler returned gets.
var errReleased = errors.New("route: write after the handler returned")

// errHijack is what Hijack returns: a routed request has no connection.
var errHijack = errors.New("route: a routed request has no connection to hijack")

// recorded is a routed response as a handler wrote it: status, headers and
// the body, cut at the limit. Its body buffer is pooled (see
// [getRecorded]); its header map is new for each response, since a handler
// may wrongly keep it, and a map shared with another call could then be
// written by two goroutines at once.
type recorded struct {
	header http.Header
	status int // 0 until the handler writes a final status
	body   []byte
	limit  int64
	cut    bool // the handler wrote more than limit
}

// maxPooledBody is the largest body buffer a recorded goes back to the
// pool with; bigger ones are left to the collector.
const maxPooledBody = 64 << 10

var recordedPool = sync.Pool{New: func() any { return new(recorded) }}

// getRecorded returns an empty recorded response keeping at most limit
// bytes of body.
func getRecorded(limit int64) *recorded {
	rec := recordedPool.Get().(*recorded)
	rec.header, rec.limit = http.Header{}, limit
	return rec
}

// release puts rec back into the pool; it must not be used afterwards, and
// its header map is no longer its own.
func (rec *recorded) release() {
	if cap(rec.body) > maxPooledBody {
		return
	}
	rec.header, rec.status, rec.body, rec.cut = nil, 0, rec.body[:0], false
	recordedPool.Put(rec)
}

// code returns the response's status: 200 if the handler set none.
func (rec *recorded) code() int {
	if rec.status == 0 {
		return http.StatusOK
	}
	return rec.status
}

// responseWriter is the http.ResponseWriter a route handler gets: a handle
// on a pooled [recorded] that is cut loose when the handler returns, so a
// handler that wrongly keeps it cannot write into another call's response.
// It supports Flush and what [http.ResponseController] asks for: flushing
// and deadlines succeed and do nothing (the response is in memory until the
// handler returns), full duplex is allowed, and Hijack fails.
type responseWriter struct {
	mu  sync.Mutex // guards rec, so that cutting it loose is not a race
	rec *recorded
}

// recorded returns the response being written, locked, or nil (unlocked)
// when the handler has returned; a non-nil result must be unlocked with
// w.mu.Unlock.
func (w *responseWriter) recorded() *recorded {
	w.mu.Lock()
	if w.rec == nil {
		w.mu.Unlock()
		return nil
	}
	return w.rec
}

// attach starts writing rec; detach cuts the writer loose from it, after
// which no write reaches it, even from a goroutine the handler left
// behind.
func (w *responseWriter) attach(rec *recorded) {
	w.mu.Lock()
	w.rec = rec
	w.mu.Unlock()
}

func (w *responseWriter) detach() { w.attach(nil) }

// Header implements http.ResponseWriter.
func (w *responseWriter) Header() http.Header {
	rec := w.recorded()
	if rec == nil {
		return http.Header{}
	}
	defer w.mu.Unlock()
	return rec.header
}

// WriteHeader implements http.ResponseWriter. Informational statuses
// (1xx) are not recorded; the first final status is.
func (w *responseWriter) WriteHeader(code int) {
	rec := w.recorded()
	if rec == nil {
		return
	}
	defer w.mu.Unlock()
	if rec.status != 0 || (code >= 100 && code < 200 && code != http.StatusSwitchingProtocols) {
		return
	}
	rec.status = code
}

// Write implements http.ResponseWriter. Beyond the binding's limit it keeps
// nothing and returns [ErrResponseTooLarge].
func (w *responseWriter) Write(p []byte) (int, error) {
	rec := w.recorded()
	if rec == nil {
		return 0, errReleased
	}
	defer w.mu.Unlock()
	return rec.write(p)
}

// write appends p to the body, up to the limit.
func (rec *recorded) write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	room := rec.limit - int64(len(rec.body))
	if int64(len(p)) <= room {
		rec.body = append(rec.body, p...)
		return len(p), nil
	}
	n := int(max(room, 0))
	rec.body = append(rec.body, p[:n]...)
	rec.cut = true
	return n, ErrResponseTooLarge
}

// WriteString implements io.StringWriter, as Write does.
func (w *responseWriter) WriteString(s string) (int, error) {
	rec := w.recorded()
	if rec == nil {
		return 0, errReleased
	}
	defer w.mu.Unlock()
	if int64(len(s)) <= rec.limit-int64(len(rec.body)) {
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		rec.body = append(rec.body, s...)
		return len(s), nil
	}
	return rec.write([]byte(s))
}

// Flush implements http.Flusher. It does nothing: the response is the
// call's result once the handler returns.
func (w *responseWriter) Flush() {}

// FlushError is Flush, for http.ResponseController.
func (w *responseWriter) FlushError() error { return nil }

// SetReadDeadline does nothing, for http.ResponseController: the request's
// body is in memory.
func (w *responseWriter) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline does nothing, for http.ResponseController: writes go
// to memory. The call's context carries its deadline.
func (w *responseWriter) SetWriteDeadline(time.Time) error { return nil }

// EnableFullDuplex allows reading the request while writing the response,
// for http.ResponseController: both are in memory.
func (w *responseWriter) EnableFullDuplex() error { return nil }

// Hijack fails: a routed request has no connection.
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, errHijack
}
