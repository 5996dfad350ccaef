package ferry

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
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

func acceptsSSE(accept string) bool {
	return strings.Contains(accept, "text/event-stream")
}

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
	return sw.within(func() error { return sw.event(msg) })
}

// trySendChange implements [changeSender]: an HTTP write may always wait,
// so it never sends.
func (sw *streamWriter) trySendChange([]byte) bool { return false }

// within runs write under a write deadline of [NotificationWriteTimeout];
// the caller holds sw.mu. A write that fails breaks the stream: it may have
// been cut short, and the client is not reading. A write that succeeds
// lifts the deadline, so a long-lived stream is not cut by an
// [http.Server.WriteTimeout] (the previous deadline cannot be read back);
// see [NotificationWriteTimeout].
func (sw *streamWriter) within(write func() error) error {
	if err := httpWriteWithin(sw.w, write); err != nil {
		sw.broken = true
		return err
	}
	return nil
}

// bigAnswer is the size above which a plain JSON answer is written under a
// deadline. A smaller one fits the connection's send buffer, so writing it
// never waits, and the common answer pays for no deadline.
const bigAnswer = 64 << 10

// httpWriteWithin runs write under a write deadline of
// [NotificationWriteTimeout] on w, when w supports deadlines (net/http's
// ResponseWriter does), and lifts it after: net/http does not reset a
// deadline between the requests of a kept-alive connection unless an
// [http.Server.WriteTimeout] is set. A write that missed the deadline is
// [errStreamStalled].
func httpWriteWithin(w http.ResponseWriter, write func() error) error {
	rc := http.NewResponseController(w)
	timed := rc.SetWriteDeadline(time.Now().Add(NotificationWriteTimeout)) == nil
	if err := write(); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: a write waited %v", errStreamStalled, NotificationWriteTimeout)
		}
		return err
	}
	if timed {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	return nil
}

// writeAnswer writes a plain JSON answer's body, under a deadline when it
// is big (see [bigAnswer]).
func writeAnswer(w http.ResponseWriter, body []byte) {
	if len(body) <= bigAnswer {
		_, _ = w.Write(body)
		return
	}
	_ = httpWriteWithin(w, func() error {
		_, err := w.Write(body)
		return err
	})
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

func (sw *streamWriter) event(msg []byte) error {
	if _, err := io.WriteString(sw.w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := sw.w.Write(msg); err != nil {
		return err
	}
	if _, err := io.WriteString(sw.w, "\n\n"); err != nil {
		return err
	}
	return http.NewResponseController(sw.w).Flush()
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
	return sw.within(func() error {
		if _, err := io.WriteString(sw.w, ": keepalive\n\n"); err != nil {
			return err
		}
		return http.NewResponseController(sw.w).Flush()
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
		_ = sw.within(func() error { return sw.event(resp) })
		return
	}
	sw.w.Header()["Content-Type"] = jsonContentType
	sw.w.WriteHeader(status)
	writeAnswer(sw.w, resp)
}
