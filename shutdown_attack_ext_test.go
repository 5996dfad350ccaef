package ferry_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// collect reads a response to its end (a JSON body, or every SSE event).
type collected struct {
	status int
	events []string
	err    error
}

func collect(ctx context.Context, method, url, session, body string, header ...string) collected {
	var out collected
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		out.err = err
		return out
	}
	defer resp.Body.Close()
	out.status = resp.StatusCode
	buf := new(strings.Builder)
	_, out.err = copyBody(buf, resp)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(buf.String(), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
				out.events = append(out.events, data)
			}
		}
	} else if buf.Len() > 0 {
		out.events = []string{buf.String()}
	}
	return out
}

func copyBody(w *strings.Builder, resp *http.Response) (int64, error) {
	b := make([]byte, 4096)
	var n int64
	for {
		k, err := resp.Body.Read(b)
		w.Write(b[:k])
		n += int64(k)
		if err != nil {
			if err.Error() == "EOF" {
				return n, nil
			}
			return n, err
		}
	}
}

// Shutdown at a random moment of a mix of traffic: running calls (that
// finish or are stuck), elicitations nobody answers, GET streams, listens,
// batches, new requests racing the shutdown, two Shutdowns at once. Every
// client gets a whole answer for its id, a 503 with its id, or (a GET) a
// clean end; Shutdown returns nil or the deadline's error; nothing is
// left running.
func TestHTTPShutdownAtRandomMoments(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for round := range rounds {
		delay := time.Duration(rng.IntN(40)) * time.Millisecond
		deadline := time.Duration(rng.IntN(150)) * time.Millisecond
		releaseAfter := time.Duration(rng.IntN(200)) * time.Millisecond
		t.Run(fmt.Sprintf("%d-delay%v-deadline%v-release%v", round, delay, deadline, releaseAfter), func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: true})
			s.started, s.ended = make(chan string, 1000), make(chan string, 1000)
			s.srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks; nobody answers."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				_, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?", RequestedSchema: []byte(`{"type":"object","properties":{}}`)})
				return nil, err
			})
			sess := initLegacy(t, s.ts.URL, `{"elicitation":{}}`)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			type client struct {
				what, id string // id: the JSON-RPC id the answer must carry; "" for a GET
				got      collected
			}
			var (
				mu      sync.Mutex
				clients []*client
				wg      sync.WaitGroup
			)
			start := func(what, id, method, session, body string, header ...string) {
				c := &client{what: what, id: id}
				mu.Lock()
				clients = append(clients, c)
				mu.Unlock()
				wg.Go(func() { c.got = collect(ctx, method, s.ts.URL, session, body, header...) })
			}
			n := 0
			traffic := func() {
				n++
				k := fmt.Sprint(n)
				switch rng.IntN(7) {
				case 0:
					body, hd := modernToolCall(`"g`+k+`"`, "gate")
					start("modern gate", `"g`+k+`"`, "POST", "", body, hd...)
				case 1:
					body, hd := modernToolCall(`"s`+k+`"`, "stuck")
					start("modern stuck", `"s`+k+`"`, "POST", "", body, hd...)
				case 2:
					start("legacy gate", `"lg`+k+`"`, "POST", sess, `{"jsonrpc":"2.0","id":"lg`+k+`","method":"tools/call","params":{"name":"gate","arguments":{}}}`)
				case 3:
					start("elicitation", `"e`+k+`"`, "POST", sess, `{"jsonrpc":"2.0","id":"e`+k+`","method":"tools/call","params":{"name":"ask","arguments":{}}}`)
				case 4:
					start("batch", `"b`+k+`"`, "POST", sess, `[{"jsonrpc":"2.0","id":"b`+k+`","method":"tools/call","params":{"name":"stuck","arguments":{}}},`+
						`{"jsonrpc":"2.0","id":"bp`+k+`","method":"ping"},{"jsonrpc":"2.0","id":"be`+k+`","method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
				case 5:
					start("listen", `"l`+k+`"`, "POST", "", `{"jsonrpc":"2.0","id":"l`+k+`","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMetaJSON+`}}`,
						"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
				case 6:
					start("GET", "", "GET", sess, "")
				}
			}
			for range 10 {
				traffic()
			}
			time.Sleep(delay)
			errs := make(chan error, 2)
			for range 2 {
				go func() {
					sctx, scancel := context.WithTimeout(context.Background(), deadline)
					defer scancel()
					errs <- s.h.Shutdown(sctx)
				}()
			}
			for range 5 { // racing the shutdown
				traffic()
			}
			time.AfterFunc(releaseAfter, func() { close(s.release) })
			for range 2 {
				if err := <-errs; err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Shutdown = %v", err)
				}
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("a client still waits 15s after the shutdown")
			}
			for _, c := range clients {
				if c.got.err != nil {
					t.Errorf("%s %s: %v (events %q)", c.what, c.id, c.got.err, c.got.events)
					continue
				}
				if c.id == "" { // a GET: a clean end, or refused (409: the session's one GET stream is open)
					if c.got.status != 200 && c.got.status != 503 && c.got.status != 409 {
						t.Errorf("GET: %d %q", c.got.status, c.got.events)
					}
					for _, ev := range c.got.events {
						if strings.Contains(ev, `"error"`) && c.got.status == 200 {
							t.Errorf("GET stream's event: %s", ev)
						}
					}
					continue
				}
				if len(c.got.events) == 0 {
					t.Errorf("%s %s: HTTP %d and no answer", c.what, c.id, c.got.status)
					continue
				}
				last := c.got.events[len(c.got.events)-1]
				if !strings.Contains(last, `"id":`+c.id) || (!strings.Contains(last, `"result"`) && !strings.Contains(last, `"error"`)) {
					t.Errorf("%s %s: HTTP %d, last event %s", c.what, c.id, c.got.status, last)
				}
				if c.got.status == 503 && !strings.Contains(last, "shutting down") {
					t.Errorf("%s %s: 503 %s", c.what, c.id, last)
				}
				if c.what == "listen" && c.got.status == 200 && strings.Contains(last, `"error"`) {
					t.Errorf("a listen ended with an error: %s", last)
				}
			}
			s.ts.Close()
			// the stuck tools may still be returning
			noGoroutinesLeft(t, before)
		})
	}
}

// A stdio Shutdown while the client keeps writing requests: each request
// the server read is answered (served, or refused as shutting down), none
// is lost between, Run returns nil, both Shutdowns return nil, and a Run
// and a Shutdown after it still behave.
func TestStdioShutdownWhileThePeerWrites(t *testing.T) {
	for round := range 20 {
		before := runtime.NumGoroutine()
		s := newShutdownServer(t, nil)
		cr, cw := io.Pipe()
		sr, sw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.srv.Run(context.Background(), &ferry.IOTransport{Reader: cr, Writer: sw}) }()
		answers := make(chan []string, 1)
		first := make(chan struct{})
		go func() {
			var got []string
			sc := bufio.NewScanner(sr)
			for sc.Scan() {
				if got = append(got, sc.Text()); len(got) == 1 {
					close(first)
				}
			}
			answers <- got
		}()
		sent := make(chan int, 1)
		go func() {
			n := 0
			defer func() { sent <- n }()
			if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
				return
			}
			for n = 1; n < 100000; n++ {
				if _, err := fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", n); err != nil {
					return // the server closed its input
				}
			}
		}()
		<-first // Run serves
		time.Sleep(time.Duration(round%5) * time.Millisecond)
		errs := make(chan error, 2)
		for range 2 {
			go func() { errs <- s.srv.Shutdown(context.Background()) }()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("Shutdown = %v", err)
			}
		}
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		sw.Close()
		got := <-answers
		cw.Close()
		n := <-sent
		ids := map[string]bool{}
		refused := 0
		for _, line := range got {
			var m struct {
				ID    json.RawMessage `json:"id"`
				Error *struct{ Message string }
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || len(m.ID) == 0 {
				t.Fatalf("round %d: a line that is no answer: %s", round, line)
			}
			if m.Error != nil {
				refused++
				if !strings.Contains(m.Error.Message, "shutting down") {
					t.Fatalf("round %d: %s", round, line)
				}
			}
			ids[string(m.ID)] = true
		}
		// The server reads in order: the requests it read are 1..k, and
		// each must have its answer.
		k := 0
		for ids[fmt.Sprint(k+1)] {
			k++
		}
		if len(ids) != k+1 { // +1: initialize's id 0
			var missing []int
			for i := 1; i <= n && len(missing) < 5; i++ {
				if !ids[fmt.Sprint(i)] && i < k+len(ids) {
					missing = append(missing, i)
				}
			}
			t.Fatalf("round %d: %d answers but only 1..%d contiguous; missing e.g. %v (sent %d, refused %d)", round, len(ids), k, missing, n, refused)
		}
		t.Logf("round %d: %d answered, %d of them refused", round, k, refused)
		noGoroutinesLeft(t, before)
	}
	s := newShutdownServer(t, nil)
	if err := s.srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown before Run = %v", err)
	}
	if err := s.srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(""), Writer: io.Discard}); !errors.Is(err, ferry.ErrServerClosed) {
		t.Fatalf("Run after Shutdown = %v", err)
	}
}

// Shutdown of a handler never served, twice, and ShutdownHTTPServer of an
// http.Server never started, return nil at once.
func TestHTTPShutdownBeforeServe(t *testing.T) {
	s := newShutdownServer(t, nil)
	h := ferry.NewHTTPHandler(s.srv, &ferry.HTTPOptions{Stateful: true})
	for range 2 {
		if err := h.Shutdown(context.Background()); err != nil {
			t.Fatalf("Shutdown = %v", err)
		}
	}
	hs := ferry.NewHTTPServer("127.0.0.1:0", h)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := ferry.ShutdownHTTPServer(ctx, hs, h); err != nil {
		t.Fatalf("ShutdownHTTPServer = %v", err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"id":3`) {
		t.Fatalf("a request after Shutdown: %d %s", rec.Code, rec.Body)
	}
}

// slowRefusalConn is a Connection fed from a channel whose Write of a
// "shutting down" refusal takes a while (a slow pipe), and which drops
// what is written after Close.
type slowRefusalConn struct {
	in      chan []byte
	mu      sync.Mutex
	closed  bool
	out     []string
	lost    []string
	writing chan struct{} // closed when the refusal's write begins
	once    sync.Once
	done    chan struct{}
}

func (c *slowRefusalConn) Connect(context.Context) (ferry.Connection, error) { return c, nil }

func (c *slowRefusalConn) Read(ctx context.Context) ([]byte, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return nil, ferry.ErrConnectionClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *slowRefusalConn) Write(_ context.Context, msg []byte) error {
	if strings.Contains(string(msg), "shutting down") {
		c.once.Do(func() { close(c.writing) })
		time.Sleep(100 * time.Millisecond)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		c.lost = append(c.lost, string(msg))
		return ferry.ErrConnectionClosed
	}
	c.out = append(c.out, string(msg))
	return nil
}

func (c *slowRefusalConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.done)
	}
	return nil
}

// On stdio, a request refused during a shutdown holds the connection open
// until its refusal is written: the refusal used to count the request as
// done before writing, so a running call that finished meanwhile let the
// drained connection close under it, and the client never got its answer.
func TestStdioShutdownRefusalIsWrittenBeforeTheClose(t *testing.T) {
	s := newShutdownServer(t, nil)
	c := &slowRefusalConn{in: make(chan []byte, 8), writing: make(chan struct{}), done: make(chan struct{})}
	done := make(chan error, 1)
	go func() { done <- s.srv.Run(context.Background(), c) }()
	c.in <- []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	c.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gate","arguments":{}}}`)
	<-s.started
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Shutdown(context.Background()) }()
	// Send pings until one is refused (the shutdown has begun).
	for i := 2; ; i++ {
		c.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		select {
		case <-c.writing:
		case <-time.After(20 * time.Millisecond):
			continue
		}
		break
	}
	close(s.release) // the call finishes while the refusal is being written
	if err := <-errc; err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.lost) != 0 {
		t.Fatalf("answers written after the connection closed: %q", c.lost)
	}
	if got := strings.Join(c.out, "\n"); !strings.Contains(got, "gate done") || !strings.Contains(got, "shutting down") {
		t.Fatalf("the answers: %s", got)
	}
}
