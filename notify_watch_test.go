package ferry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// lockedBuffer is a log sink the test reads while the server writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newWatchedServer returns a server with one resource, logging to logs.
func newWatchedServer(logs io.Writer) *Server {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	srv.AddResource(Resource{URI: "r://x", Name: "x"}, func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) {
		return nil, nil
	})
	srv.AddTool(Tool{Name: "t0", Description: "Does nothing."}, func(context.Context, *CallToolRequest) (*ToolResult, error) { return &ToolResult{}, nil })
	return srv
}

// notifyMany makes 10,000 changes and reports how long the caller waited,
// by the clock of the test's bubble: zero unless something blocked.
func notifyMany(srv *Server) time.Duration {
	start := time.Now()
	for i := range 10000 {
		srv.NotifyResourceUpdated("r://x")
		if i%100 == 0 {
			srv.AddTool(Tool{Name: "t1", Description: "Does nothing."}, func(context.Context, *CallToolRequest) (*ToolResult, error) { return &ToolResult{}, nil })
			srv.RemoveTools("t1")
		}
	}
	return time.Since(start)
}

// checkQueuesBounded fails if any stream holds more than a notification
// per kind of change.
func checkQueuesBounded(t *testing.T, srv *Server) {
	t.Helper()
	for _, w := range srv.currentWatchers() {
		if n := w.pending(); n > 2 {
			t.Errorf("a stream holds %d queued notifications after 10,000 changes of 2 kinds", n)
		}
	}
}

// stdioClient is a client of [Server.Run] over pipes.
type stdioClient struct {
	in   *io.PipeWriter // the client's lines
	out  *io.PipeWriter // the server's output
	done chan error     // Run's result
}

func startStdio(t *testing.T, srv *Server, out io.Writer, pw *io.PipeWriter) *stdioClient {
	inR, inW := io.Pipe()
	c := &stdioClient{in: inW, out: pw, done: make(chan error, 1)}
	go func() { c.done <- srv.Run(context.Background(), &IOTransport{Reader: inR, Writer: out}) }()
	return c
}

func (c *stdioClient) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

var legacySubscribe = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"r://x"}}`,
}

// A stdio client that stops reading holds up neither the code that makes
// changes nor the other clients; its stream is ended and logged.
// checkStdioEndedAfterStall is what the stdio stall tests share, in their
// bubble: the client's connection is not ended before
// NotificationWriteTimeout, is ended then with errStreamStalled, and the
// end is logged once.
func checkStdioEndedAfterStall(t *testing.T, c *stdioClient, logs *lockedBuffer) {
	t.Helper()
	select {
	case err := <-c.done:
		t.Fatalf("the stalled client was ended before the limit: %v", err)
	default:
	}
	time.Sleep(NotificationWriteTimeout + time.Second)
	synctest.Wait()
	select {
	case err := <-c.done:
		if !errors.Is(err, errStreamStalled) {
			t.Errorf("Run = %v, want an error saying the client is not reading", err)
		}
	default:
		t.Fatal("the stalled client's connection was not ended")
	}
	if n := strings.Count(logs.String(), "ended a stream whose client is not reading"); n != 1 {
		t.Errorf("the end of the stalled stream was logged %d times, want once:\n%s", n, logs.String())
	}
}

func TestStalledStdioClientIsEndedWithoutBlockingNotifiers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		srv := newWatchedServer(&logs)

		_, stalledOut := io.Pipe() // never read
		stalled := startStdio(t, srv, stalledOut, stalledOut)
		stalled.send(t, legacySubscribe...)

		readR, readW := io.Pipe()
		reader := startStdio(t, srv, readW, readW)
		var got lockedBuffer
		var readerWG sync.WaitGroup
		readerWG.Go(func() {
			sc := bufio.NewScanner(readR)
			for sc.Scan() {
				_, _ = got.Write(append(sc.Bytes(), '\n'))
			}
		})
		reader.send(t, legacySubscribe...)
		synctest.Wait()

		if waited := notifyMany(srv); waited != 0 {
			t.Errorf("the notifier waited %v", waited)
		}
		synctest.Wait()
		checkQueuesBounded(t, srv)
		if s := got.String(); !strings.Contains(s, `"notifications/resources/updated","params":{"uri":"r://x"}`) ||
			!strings.Contains(s, "notifications/tools/list_changed") {
			t.Errorf("the reading client did not get its notifications:\n%.500s", s)
		}
		checkStdioEndedAfterStall(t, stalled, &logs)

		stalled.in.Close()
		reader.in.Close()
		if err := <-reader.done; err != nil {
			t.Errorf("the reading client's Run = %v", err)
		}
		readW.Close()
		readerWG.Wait()
	})
}

// A modern subscriptions/listen on stdio whose client stops reading after
// the acknowledgement ends the connection without holding up the
// notifier, and the end is logged once.
func TestStalledStdioListenIsEndedAndLoggedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		srv := newWatchedServer(&logs)
		_, out := io.Pipe() // never read
		c := startStdio(t, srv, out, out)
		c.send(t, `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["r://x"]},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		synctest.Wait()

		if waited := notifyMany(srv); waited != 0 {
			t.Errorf("the notifier waited %v", waited)
		}
		synctest.Wait()
		checkQueuesBounded(t, srv)
		checkStdioEndedAfterStall(t, c, &logs)
		if !strings.Contains(logs.String(), "stream=subscriptions/listen") {
			t.Errorf("the log does not name the listen stream:\n%s", logs.String())
		}
		c.in.Close()
	})
}

// stallWriter is a ResponseWriter whose client reads the first allow
// writes and then nothing: a write blocks until its write deadline.
type stallWriter struct {
	header  http.Header
	release chan struct{}

	mu       sync.Mutex
	allow    int
	deadline time.Time
}

func newStallWriter(allow int) *stallWriter {
	return &stallWriter{header: http.Header{}, release: make(chan struct{}), allow: allow}
}

func (w *stallWriter) Header() http.Header { return w.header }
func (w *stallWriter) WriteHeader(int)     {}
func (w *stallWriter) Flush()              {}

func (w *stallWriter) SetWriteDeadline(d time.Time) error {
	w.mu.Lock()
	w.deadline = d
	w.mu.Unlock()
	return nil
}

func (w *stallWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	if w.allow > 0 {
		w.allow--
		w.mu.Unlock()
		return len(b), nil
	}
	d := w.deadline
	w.mu.Unlock()
	var timeout <-chan time.Time
	if !d.IsZero() {
		timeout = time.After(time.Until(d))
	}
	select {
	case <-timeout:
		return 0, os.ErrDeadlineExceeded
	case <-w.release:
		return 0, io.ErrClosedPipe
	}
}

// countingStore counts the loads of a store.
type countingStore struct {
	MemorySessionStore
	loads atomic.Int64
}

func (s *countingStore) Load(ctx context.Context, id string) (*SessionState, error) {
	s.loads.Add(1)
	return s.MemorySessionStore.Load(ctx, id)
}

// post sends a JSON-RPC body to h and returns the recorder.
func post(h http.Handler, session, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	req.Host = "localhost"
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(headerSessionID, session)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// statefulSession initializes a stateful session subscribed to r://x.
func statefulSession(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := post(h, "", legacySubscribe[0])
	id := rec.Header().Get(headerSessionID)
	if id == "" {
		t.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	if rec := post(h, id, legacySubscribe[2]); !strings.Contains(rec.Body.String(), `"result":{}`) {
		t.Fatalf("subscribe: %s", rec.Body)
	}
	return id
}

// openGet serves a GET stream on w until it ends.
func openGet(h http.Handler, session string, w http.ResponseWriter) chan struct{} {
	req := httptest.NewRequest("GET", "/mcp", nil)
	req.Host = "localhost"
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, session)
	done := make(chan struct{})
	go func() {
		h.ServeHTTP(w, req)
		close(done)
	}()
	return done
}

// A GET stream whose client stops reading holds up neither the notifier
// nor other sessions' streams, is ended after the limit and logged; and no
// stream loads the session store per notification.
func TestStalledGETStreamIsEndedWithoutBlockingNotifiers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		srv := newWatchedServer(&logs)
		store := &countingStore{}
		h := NewHTTPHandler(srv, &HTTPOptions{Stateful: true, SessionStore: store})

		stalledW := newStallWriter(0)
		stalledDone := openGet(h, statefulSession(t, h), stalledW)
		readingW := &syncWriter{header: http.Header{}}
		readingCtx, stopReading := context.WithCancel(context.Background())
		req := httptest.NewRequestWithContext(readingCtx, "GET", "/mcp", nil)
		req.Host = "localhost"
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(headerSessionID, statefulSession(t, h))
		readingDone := make(chan struct{})
		go func() {
			h.ServeHTTP(readingW, req)
			close(readingDone)
		}()
		synctest.Wait()
		loads := store.loads.Load()

		checkStalledStream(t, srv, &logs, "GET", readingW, stalledDone, func() {
			if n := store.loads.Load() - loads; n != 0 {
				t.Errorf("the GET streams loaded the session store %d times for 10,000 notifications, want 0", n)
			}
		})
		stopReading()
		<-readingDone
		close(stalledW.release)
	})
}

// A modern subscriptions/listen stream, on the default stateless
// configuration, whose client stops reading after the acknowledgement
// holds up neither the notifier nor other streams, and is ended and logged.
func TestStalledListenStreamIsEndedWithoutBlockingNotifiers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		srv := newWatchedServer(&logs)
		h := NewHTTPHandler(srv, nil)
		listen := func(ctx context.Context, w http.ResponseWriter) chan struct{} {
			body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["r://x"]},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
			req.Host = "localhost"
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "subscriptions/listen")
			done := make(chan struct{})
			go func() {
				h.ServeHTTP(w, req)
				close(done)
			}()
			return done
		}
		stalledW := newStallWriter(3) // the acknowledgement's event
		stalledDone := listen(context.Background(), stalledW)
		readingW := &syncWriter{header: http.Header{}}
		ctx, stopReading := context.WithCancel(context.Background())
		readingDone := listen(ctx, readingW)
		synctest.Wait()

		checkStalledStream(t, srv, &logs, "subscriptions/listen", readingW, stalledDone, func() {})
		stopReading()
		<-readingDone
		close(stalledW.release)
	})
}

// checkStalledStream is what the HTTP stall tests share, in their bubble:
// 10,000 notifications that never wait, bounded queues (and whatever more
// also checks), the reading stream served, and the stalled one, named
// name in the log, ended after NotificationWriteTimeout and logged.
func checkStalledStream(t *testing.T, srv *Server, logs *lockedBuffer, name string, reading *syncWriter, stalledDone <-chan struct{}, also func()) {
	t.Helper()
	if waited := notifyMany(srv); waited != 0 {
		t.Errorf("the notifier waited %v", waited)
	}
	synctest.Wait()
	checkQueuesBounded(t, srv)
	also()
	if s := reading.String(); !strings.Contains(s, `"notifications/resources/updated","params":{"uri":"r://x"`) ||
		!strings.Contains(s, "notifications/tools/list_changed") {
		t.Errorf("the reading stream did not get its notifications:\n%.500s", s)
	}
	time.Sleep(NotificationWriteTimeout + time.Second)
	synctest.Wait()
	select {
	case <-stalledDone:
	default:
		t.Fatalf("the stalled %s stream was not ended", name)
	}
	if !strings.Contains(logs.String(), "stream="+name) {
		t.Errorf("the end of the stalled %s stream was not logged: %s", name, logs.String())
	}
}

func TestWatcherQueue(t *testing.T) {
	all := func(change) bool { return true }
	tests := []struct {
		name    string
		push    []change
		want    int  // queued afterwards
		overrun bool // the stream must end
	}{
		{"a change already waiting is not queued twice",
			[]change{{method: "m"}, {method: methodResourceUpdated, uri: "a"}, {method: "m"}, {method: methodResourceUpdated, uri: "a"}}, 2, false},
		{"distinct changes are all kept",
			[]change{{method: "m"}, {method: methodResourceUpdated, uri: "a"}, {method: methodResourceUpdated, uri: "b"}}, 3, false},
		{"a queue that overflows ends its stream",
			func() []change {
				var cs []change
				for i := range notificationQueueSize + 1 {
					cs = append(cs, change{method: methodResourceUpdated, uri: string(rune('a'+i%26)) + strings.Repeat("x", i/26)})
				}
				return cs
			}(), 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWatcher(all)
			for _, c := range tt.push {
				w.push(c)
			}
			if got := w.pending(); got != tt.want {
				t.Errorf("pending = %d, want %d", got, tt.want)
			}
			closing := make(chan struct{})
			if !tt.overrun {
				close(closing) // the stream ends cleanly, once what is queued is written
			}
			written := 0
			err := holdStream(t.Context(), closing, nil, w, func(change) error { written++; return nil })
			if !tt.overrun && written != tt.want {
				t.Errorf("%d changes written before the stream ended, want %d", written, tt.want)
			}
			if overran := errors.Is(err, errStreamStalled); overran != tt.overrun {
				t.Errorf("holdStream = %v, want the stream ended: %t", err, tt.overrun)
			}
		})
	}
}

// A change the stream does not want is not queued.
func TestWatcherQueuesOnlyWhatItsClientAskedFor(t *testing.T) {
	w := newWatcher(func(c change) bool { return c.uri == "wanted" })
	w.push(change{method: methodResourceUpdated, uri: "other"})
	w.push(change{method: "notifications/tools/list_changed"})
	w.push(change{method: methodResourceUpdated, uri: "wanted"})
	if got := w.take(); len(got) != 1 || got[0].uri != "wanted" {
		t.Errorf("queued %v, want only the wanted update", got)
	}
}

// The queue's safety bound is out of the API's reach: a listen that asks
// for every list and the most resources it may, told of each change twice,
// holds one notification per change and stays open.
func TestListenQueueStaysBelowItsSafetyBound(t *testing.T) {
	f := listenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true}
	for i := range MaxSubscriptions {
		f.ResourceSubscriptions = append(f.ResourceSubscriptions, fmt.Sprintf("r://%d", i))
	}
	w := f.watcher()
	for range 2 {
		for _, m := range []string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"} {
			w.push(change{method: m})
		}
		for _, uri := range f.ResourceSubscriptions {
			w.push(change{method: methodResourceUpdated, uri: uri})
		}
	}
	if got, want := w.pending(), MaxSubscriptions+3; got != want {
		t.Errorf("pending = %d, want %d", got, want)
	}
	select {
	case <-w.full:
		t.Errorf("the queue overflowed at %d notifications", w.pending())
	default:
	}
}

// A stdio client that sends requests and never reads their answers is
// ended once an answer has waited NotificationWriteTimeout, as a client
// that does not read its notifications is.
func TestStdioClientThatDoesNotReadAnswersIsEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs lockedBuffer
		srv := newWatchedServer(&logs)
		_, out := io.Pipe() // never read
		c := startStdio(t, srv, out, out)
		go func() {
			for i := 1; i <= 2*MaxRequestsInFlight; i++ {
				line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t0","arguments":{},`+
					`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, i)
				if _, err := io.WriteString(c.in, line+"\n"); err != nil {
					return // the connection was ended
				}
			}
		}()
		synctest.Wait()
		checkStdioEndedAfterStall(t, c, &logs)
		c.in.Close()
	})
}

// A stream that does not want a change does not ask the change's
// audience (which may run Visible for every stream) whether it may hear it.
func TestWatcherAsksAudienceOnlyOfWantedChanges(t *testing.T) {
	asked := 0
	aud := &audience{sees: func(context.Context) bool { asked++; return true }}
	w := newWatcher(func(c change) bool { return c.uri == "wanted" })
	w.push(change{method: methodResourceUpdated, uri: "other", aud: aud})
	if asked != 0 {
		t.Errorf("the audience was asked %d times of an unwanted change", asked)
	}
	w.push(change{method: methodResourceUpdated, uri: "wanted", aud: aud})
	if asked != 1 || len(w.queue) != 1 {
		t.Errorf("wanted change: asked %d times, %d queued", asked, len(w.queue))
	}
}

// A list change is told only to callers who see an entry that changed:
// adding or removing an entry hidden from a caller tells it nothing.
func TestListChangesReachOnlyThoseWhoSeeTheEntry(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	all := func(change) bool { return true }
	bob := newWatcher(all)
	bob.caller = WithPrincipal(context.Background(), &Principal{Subject: "bob"})
	admin := newWatcher(all)
	admin.caller = WithPrincipal(context.Background(), &Principal{Subject: "ann", Roles: []string{"admin"}, Scopes: []string{"hr"}})
	anonymous := newWatcher(all)
	for _, w := range []*watcher{bob, admin, anonymous} {
		defer srv.watch(w)()
	}
	h := func(context.Context, *CallToolRequest) (*ToolResult, error) { return nil, nil }
	read := func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) { return nil, nil }
	steps := []struct {
		name string
		do   func()
		want map[*watcher]bool
	}{
		{"add a tool for admins", func() { srv.AddTool(Tool{Name: "purge", Description: "Purges.", Roles: []string{"admin"}}, h) },
			map[*watcher]bool{admin: true}},
		{"remove it", func() { srv.RemoveTools("purge") }, map[*watcher]bool{admin: true}},
		{"add a prompt for hr", func() {
			srv.AddPrompt(Prompt{Name: "pay", Description: "Pay.", Scopes: []string{"hr"}},
				func(context.Context, *GetPromptRequest) (*PromptResult, error) { return nil, nil })
		}, map[*watcher]bool{admin: true}},
		{"add a resource for hr", func() { srv.AddResource(Resource{URI: "r://pay", Name: "pay", Scopes: []string{"hr"}}, read) },
			map[*watcher]bool{admin: true}},
		{"add an open tool", func() { srv.AddTool(Tool{Name: "ping", Description: "Pings."}, h) },
			map[*watcher]bool{admin: true, bob: true, anonymous: true}},
		{"remove the open tool with a hidden one", func() { srv.RemoveTools("ping", "pay") },
			map[*watcher]bool{admin: true, bob: true, anonymous: true}},
	}
	for _, st := range steps {
		st.do()
		for name, w := range map[string]*watcher{"bob": bob, "admin": admin, "anonymous": anonymous} {
			if got := len(w.take()) > 0; got != st.want[w] {
				t.Errorf("%s: %s told: %v, want %v", st.name, name, got, st.want[w])
			}
			w.idle()
		}
	}
}
