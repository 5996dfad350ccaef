package ferry

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

// This file holds how the HTTP handler answers: plain JSON, or an SSE
// stream once a message precedes the response.

// keepaliveInterval is how often a long-lived SSE stream (the GET stream, a
// subscriptions/listen) gets a comment line when nothing else is sent.
const keepaliveInterval = 25 * time.Second

// primes reports whether a legacy client speaks a version whose SSE streams
// start with a priming event (2025-11-25 and later): older clients may not
// expect an event without data.
func primes(version string) bool { return version >= "2025-11-25" }

// sseRetryMillis is the reconnection delay a priming event suggests.
const sseRetryMillis = 1000

// jsonContentType is shared by every JSON answer; nothing modifies it.
var jsonContentType = []string{"application/json"}

// streamWriter answers one POST: plain JSON unless a message must go out
// before the response, in which case it turns into an SSE stream.
type streamWriter struct {
	w   http.ResponseWriter
	sse bool // the client accepts SSE

	// prime starts the stream with a priming event: an event id, a retry
	// field and empty data, as 2025-11-25 recommends.
	prime bool
	// streamAll sends the response as an SSE event when it is a success,
	// even if no message came before it.
	streamAll bool
	// r is the request answered: its http.Server's WriteTimeout, when it
	// has one, bounds a big plain answer (see [writeAnswer]).
	r *http.Request

	mu      sync.Mutex // guards started, closed and broken, and serializes writes
	started bool       // SSE headers sent
	closed  bool
	broken  bool // a write missed its deadline: nothing more is written
}

// send writes one message before the response (progress, a log, a
// question to the client), switching to SSE.
func (sw *streamWriter) send(msg []byte) error { return sw.write(msg) }

// sendChange implements [changeSender]: it sends msg as send does.
func (sw *streamWriter) sendChange(msg []byte) error { return sw.write(msg) }

// write writes msg as an SSE event, starting the stream if needed, within
// [NotificationWriteTimeout] (see [streamWriter.within]): a client that
// stops reading holds neither the handler nor its messages for longer.
func (sw *streamWriter) write(msg []byte) error {
	if !sw.sse {
		return ErrNoClientStream
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed || sw.broken {
		return ErrNoClientStream
	}
	sw.startSSE()
	return sw.within(func(w io.Writer) error { return event(w, msg) })
}

// trySendChange implements [changeSender]: an HTTP write may always wait,
// so it never sends.
func (sw *streamWriter) trySendChange([]byte) bool { return false }

// within runs write on sw's ResponseWriter under a write deadline of
// [NotificationWriteTimeout], renewed for every [writeChunk] bytes, then
// flushes within it too; the caller holds sw.mu. So the deadline bounds how
// long a client may leave a chunk unread, not how long a big message takes.
// A write that fails breaks the stream: it may have been cut short, and
// the client is not reading. A write that succeeds lifts the deadline, so a
// long-lived stream is not cut by an [http.Server.WriteTimeout] (the
// deadline the server set cannot be read back); see
// [NotificationWriteTimeout].
func (sw *streamWriter) within(write func(w io.Writer) error) error {
	tw := newTimedWriter(sw.w)
	err := write(tw)
	if err == nil {
		err = tw.flush()
	}
	if err != nil {
		sw.broken = true
		return stalledOr(err)
	}
	tw.lift()
	return nil
}

// stalledOr returns [errStreamStalled] for a write that missed its
// deadline, and err otherwise.
func stalledOr(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w: a write waited %v", errStreamStalled, NotificationWriteTimeout)
	}
	return err
}

// writeChunk is how much of an answer is written under one deadline.
const writeChunk = 64 << 10

// bigAnswer is the size above which a plain JSON answer is written under a
// deadline. A smaller one fits the connection's usual send buffer, so the
// common answer pays for no deadline. (A client that shrinks its receive
// window can still hold a small answer, and the handler's goroutine, until
// the connection ends: an [http.Server.WriteTimeout] bounds that, as do the
// idle and read limits of [NewHTTPServer].)
const bigAnswer = writeChunk

// timedWriter writes to a ResponseWriter under a write deadline renewed
// for every [writeChunk] bytes, when the ResponseWriter supports deadlines
// (net/http's does).
type timedWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	timed bool
}

func newTimedWriter(w http.ResponseWriter) *timedWriter {
	return &timedWriter{w: w, rc: http.NewResponseController(w), timed: true}
}

// renew sets the deadline for the next chunk.
func (t *timedWriter) renew() {
	if t.timed {
		t.timed = t.rc.SetWriteDeadline(time.Now().Add(NotificationWriteTimeout)) == nil
	}
}

// Write implements [io.Writer].
func (t *timedWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		t.renew()
		m, err := t.w.Write(b[:n])
		written += m
		if err != nil {
			return written, err
		}
		b = b[n:]
	}
	return written, nil
}

// flush sends what net/http buffered, within a deadline of its own.
func (t *timedWriter) flush() error {
	t.renew()
	return t.rc.Flush()
}

// lift removes the deadline: net/http does not reset one between the
// requests of a kept-alive connection unless an [http.Server.WriteTimeout]
// is set.
func (t *timedWriter) lift() {
	if t.timed {
		_ = t.rc.SetWriteDeadline(time.Time{})
	}
}

// writeAnswer writes a plain JSON answer's body: a big one under renewed
// deadlines (see [timedWriter]), unless the server has a WriteTimeout of
// its own (see [hasWriteTimeout]), which then bounds the answer as the
// operator chose.
func writeAnswer(w http.ResponseWriter, r *http.Request, body []byte) {
	if len(body) <= bigAnswer || hasWriteTimeout(r) {
		_, _ = w.Write(body)
		return
	}
	tw := newTimedWriter(w)
	if _, err := tw.Write(body); err == nil && tw.flush() == nil {
		tw.lift()
	}
}

func (sw *streamWriter) startSSE() {
	if sw.started {
		return
	}
	sw.started = true
	hd := sw.w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no")
	sw.w.WriteHeader(http.StatusOK)
	if sw.prime {
		// No event is stored, so the id only tells a client the stream
		// was there; a reconnection finds nothing to replay.
		_, _ = io.WriteString(sw.w, "id: "+newSessionID()+"\nretry: "+strconv.Itoa(sseRetryMillis)+"\ndata: \n\n")
	}
}

// event writes msg to w as an SSE message event; the caller flushes.
func event(w io.Writer, msg []byte) error {
	if _, err := io.WriteString(w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n\n")
	return err
}

// open starts the SSE stream and sends its headers at once.
func (sw *streamWriter) open() {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.startSSE()
	_ = http.NewResponseController(sw.w).Flush()
}

// keepalive writes an SSE comment, so that proxies and clients see a long
// stream is alive; it opens the stream if needed.
func (sw *streamWriter) keepalive() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.closed || sw.broken || !sw.sse {
		return ErrNoClientStream
	}
	sw.startSSE()
	return sw.within(func(w io.Writer) error {
		_, err := io.WriteString(w, ": keepalive\n\n")
		return err
	})
}

// finish writes the response and ends the exchange.
func (sw *streamWriter) finish(status int, resp []byte) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	sw.closed = true
	if sw.broken {
		return
	}
	if sw.started || (sw.streamAll && status == http.StatusOK) {
		sw.startSSE()
		_ = sw.within(func(w io.Writer) error { return event(w, resp) })
		return
	}
	sw.w.Header()["Content-Type"] = jsonContentType
	sw.w.WriteHeader(status)
	writeAnswer(sw.w, sw.r, resp)
}
