package interop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// backPressureGuard bounds the whole back-pressure test: it is no timing
// target, only a guard against a hang.
const backPressureGuard = 2 * time.Minute

// stalledLog is what ferry logs when it ends a stream whose client does
// not read.
const stalledLog = "ferry: ended a stream whose client is not reading"

// A GET stream on replica B whose client never reads holds up nobody:
// thousands of updates made on replica A return at once, another session's
// GET stream on B that reads still hears of them, and B ends the stalled
// stream once a write has waited NotificationWriteTimeout, logging why.
func TestReplicasBackPressure(t *testing.T) {
	for _, st := range sharedStores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			testBackPressure(t, newCluster(t, 2, st, nil))
		})
	}
}

func testBackPressure(t *testing.T, c *cluster) {
	a, b := c.srv[0], c.urls[1]
	ctx, cancel := context.WithTimeout(t.Context(), backPressureGuard)
	defer cancel()
	// Long URIs, so that the stalled stream's buffers fill with fewer
	// updates than the relay carries (within the 64 KiB of URIs a session
	// may subscribe to).
	const items = 32
	pad := strings.Repeat("x", 1500)
	uris := []string{"doc://item/hot-" + pad}
	for i := range items {
		uris = append(uris, fmt.Sprintf("doc://item/%d-%s", i, pad))
	}
	marker := "doc://item/marker-" + randomHex(4)

	// Both sessions are opened and subscribed on A; their GET streams are
	// on B.
	stalledID := rawInitialize(ctx, t, c.urls[0])
	readerID := rawInitialize(ctx, t, c.urls[0])
	for _, u := range uris {
		rawSubscribe(ctx, t, c.urls[0], stalledID, u)
		rawSubscribe(ctx, t, c.urls[0], readerID, u)
	}
	rawSubscribe(ctx, t, c.urls[0], readerID, marker)
	stalled := openStalledGET(ctx, t, b, stalledID)
	reader := openReadingGET(ctx, t, b, readerID)

	// Many updates, of varying and identical URIs: NotifyResourceUpdated
	// only queues, whatever the streams do.
	burst := func(n int) {
		for i := range n {
			if i%3 == 0 {
				a.NotifyResourceUpdated(uris[0])
			} else {
				a.NotifyResourceUpdated(uris[1+i%items])
			}
		}
	}
	start := time.Now()
	burst(10_000)
	t.Logf("10000 NotifyResourceUpdated on replica A took %v", time.Since(start))

	// More bursts until the stalled stream's writes block and B ends it.
	for !strings.Contains(c.logs[1].String(), stalledLog) {
		select {
		case <-ctx.Done():
			t.Fatalf("B did not end the stalled stream within %v; its log:\n%s", backPressureGuard, c.logs[1])
		case <-time.After(20 * time.Millisecond):
		}
		burst(1000)
	}
	// The reading stream still hears of updates. (Not of every one: A's
	// relay drops what its queue cannot hold, and says so in its log.)
	for !reader.saw(marker) {
		a.NotifyResourceUpdated(marker)
		select {
		case <-ctx.Done():
			t.Fatalf("the reading stream on B did not hear of the marker within %v (%d events)", backPressureGuard, reader.count())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := reader.failure(); err != nil {
		t.Errorf("the reading stream on B ended: %v", err)
	}
	if !reader.saw(uris[0]) || !reader.saw(uris[items]) {
		t.Errorf("the reading stream on B did not hear of the hot URI and of item %d", items-1)
	}
	// B's handler of the stalled stream returned...
	deadline := time.Now().Add(eventTimeout)
	for c.inflightFor(stalled.tag) != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := c.inflightFor(stalled.tag); n != 0 {
		t.Errorf("B logged the end of the stalled stream, but still serves it (%d requests)", n)
	}
	// ...and closed its connection: reading it now gets what was
	// buffered, then its end, not a wait.
	if err := stalled.drain(); err != nil {
		t.Errorf("the stalled stream after B ended it: %v", err)
	}
	if log := c.logs[1].String(); !strings.Contains(log, "stream=GET") || !strings.Contains(log, "the client is not reading its stream") {
		t.Errorf("B's log does not say which stream it ended and why:\n%s", log)
	}
}

// rawInitialize opens a legacy session on url and returns its id.
func rawInitialize(ctx context.Context, t *testing.T, url string) string {
	t.Helper()
	status, header, body := rawPost(ctx, t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	id := header.Get("Mcp-Session-Id")
	if status != http.StatusOK || id == "" {
		t.Fatalf("initialize on %s: %d %s", url, status, body)
	}
	return id
}

// rawSubscribe subscribes session id to uri through url.
func rawSubscribe(ctx context.Context, t *testing.T, url, id, uri string) {
	t.Helper()
	status, _, body := rawPost(ctx, t, url, id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+uri+`"}}`)
	if status != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("subscribe %.40s... on %s: %d %s", uri, url, status, body)
	}
}

// rawPost posts a JSON-RPC message in session id (none if empty).
func rawPost(ctx context.Context, t *testing.T, url, id, msg string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", v20251125)
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(body)
}

// stalledStream is a GET stream whose body is not read.
type stalledStream struct {
	conn net.Conn
	tag  string // its clientTag
}

// openStalledGET opens session id's GET stream on url over a connection
// of its own and reads its response header, nothing of its body.
func openStalledGET(ctx context.Context, t *testing.T, rawURL, id string) *stalledStream {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	tag := "stalled-" + randomHex(4)
	_, err = fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: %s\r\n%s: %s\r\n\r\n",
		u.Host, id, v20251125, clientTag, tag)
	if err != nil {
		t.Fatal(err)
	}
	// The header, byte by byte, so that nothing of the body is read.
	_ = conn.SetReadDeadline(time.Now().Add(eventTimeout))
	var head bytes.Buffer
	one := make([]byte, 1)
	for !bytes.HasSuffix(head.Bytes(), []byte("\r\n\r\n")) {
		if _, err := conn.Read(one); err != nil {
			t.Fatalf("reading the stalled GET's header: %v (so far: %q)", err, head.String())
		}
		head.WriteByte(one[0])
	}
	if !strings.HasPrefix(head.String(), "HTTP/1.1 200") {
		t.Fatalf("the stalled GET: %q", head.String())
	}
	return &stalledStream{conn: conn, tag: tag}
}

// drain reads what the stream holds until its end; an error if the end
// does not come within eventTimeout.
func (s *stalledStream) drain() error {
	_ = s.conn.SetReadDeadline(time.Now().Add(eventTimeout))
	_, err := io.Copy(io.Discard, s.conn)
	var ne net.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("still open: %w", err)
	default:
		return nil // reset by the server: ended too
	}
}

// readingStream is a GET stream read as fast as it comes, noting the URIs
// of the updates it hears of.
type readingStream struct {
	mu     sync.Mutex     // guards seen, events and err
	seen   map[string]int // updates heard of, by URI
	events int
	err    error // why the stream ended, if it did
}

// openReadingGET opens session id's GET stream on url and reads it until
// t ends.
func openReadingGET(ctx context.Context, t *testing.T, url, id string) *readingStream {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", v20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	rs := &readingStream{seen: map[string]int{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			_, rest, ok := strings.Cut(line, `"uri":"`)
			if !ok {
				continue
			}
			uri, _, _ := strings.Cut(rest, `"`)
			rs.mu.Lock()
			rs.seen[uri]++
			rs.events++
			rs.mu.Unlock()
		}
		rs.mu.Lock()
		rs.err = sc.Err()
		if rs.err == nil {
			rs.err = io.EOF
		}
		rs.mu.Unlock()
	}()
	t.Cleanup(func() {
		resp.Body.Close()
		<-done
	})
	return rs
}

func (rs *readingStream) saw(uri string) bool { return rs.times(uri) > 0 }

// times returns how many updates of uri the stream heard of.
func (rs *readingStream) times(uri string) int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.seen[uri]
}

func (rs *readingStream) count() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.events
}

func (rs *readingStream) failure() error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.err
}
