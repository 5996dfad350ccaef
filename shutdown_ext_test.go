package ferry_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

const modernMetaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// modernToolCall returns the body and headers of a 2026-07-28 tools/call.
func modernToolCall(id, tool string) (string, []string) {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + modernMetaJSON + `}}`,
		[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool}
}

// shutdownServer serves "gate", which returns once release is closed (or
// its context ends), and "stuck", which returns only when its context
// ends, reporting its error on ended; both report on started.
type shutdownServer struct {
	srv              *ferry.Server
	started, ended   chan string
	release          chan struct{}
	h                *ferry.HTTPHandler
	ts               *httptest.Server
	goroutinesBefore int
}

func newShutdownServer(t *testing.T, opts *ferry.HTTPOptions) *shutdownServer {
	t.Helper()
	s := &shutdownServer{started: make(chan string, 8), ended: make(chan string, 8), release: make(chan struct{}),
		goroutinesBefore: runtime.NumGoroutine()}
	s.srv = ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	s.srv.AddTool(ferry.Tool{Name: "gate", Description: "Waits for the test."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		s.started <- "gate"
		select {
		case <-s.release:
			return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("gate done")}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s.srv.AddTool(ferry.Tool{Name: "stuck", Description: "Runs until cancelled."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		s.started <- "stuck"
		<-ctx.Done()
		s.ended <- ctx.Err().Error()
		return nil, ctx.Err()
	})
	if opts != nil {
		s.h = ferry.NewHTTPHandler(s.srv, opts)
		s.ts = httptest.NewServer(s.h)
	}
	return s
}

// shutdownAsync calls the handler's Shutdown with a context of d and
// returns where its error arrives.
func (s *shutdownServer) shutdownAsync(d time.Duration) <-chan error {
	errc := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		errc <- s.h.Shutdown(ctx)
	}()
	return errc
}

// waitRefusing waits until the handler refuses new requests with 503.
func (s *shutdownServer) waitRefusing(t *testing.T) {
	t.Helper()
	for range 500 {
		status, _, body := post(t, s.ts.URL, "", "", `{"jsonrpc":"2.0","id":99,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		if status == http.StatusServiceUnavailable {
			if !strings.Contains(body, `"id":99`) || !strings.Contains(body, "shutting down") {
				t.Fatalf("the refusal: %s", body)
			}
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("new requests are still served")
}

// closeAndCheckGoroutines closes the test server and fails if goroutines
// started during the test are still running.
func (s *shutdownServer) closeAndCheckGoroutines(t *testing.T) {
	t.Helper()
	if s.ts != nil {
		s.ts.Close()
	}
	noGoroutinesLeft(t, s.goroutinesBefore)
}

// noGoroutinesLeft fails if more goroutines run than before, once those
// ending have had a moment.
func noGoroutinesLeft(t *testing.T, before int) {
	t.Helper()
	http.DefaultClient.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left (before: %d):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
	}
}

// A call running when Shutdown begins finishes and is answered; new
// requests get 503; Shutdown returns nil once the call is answered.
func TestHTTPShutdownLetsRunningCallsFinish(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(fmt.Sprint("stateful=", stateful), func(t *testing.T) {
			s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: stateful})
			body, hd := modernToolCall("1", "gate")
			if stateful {
				sess := initLegacy(t, s.ts.URL, `{}`)
				body, hd = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gate","arguments":{}}}`, []string{"Mcp-Session-Id", sess}
			}
			call := openStream(t, "POST", s.ts.URL, "", body, hd...)
			<-s.started
			errc := s.shutdownAsync(10 * time.Second)
			s.waitRefusing(t)
			select {
			case err := <-errc:
				t.Fatalf("Shutdown returned %v while a call runs", err)
			default:
			}
			close(s.release)
			if answer := call.next(); !strings.Contains(answer, "gate done") {
				t.Fatalf("the call's answer: %s", answer)
			}
			if err := <-errc; err != nil {
				t.Fatalf("Shutdown = %v", err)
			}
			s.closeAndCheckGoroutines(t)
		})
	}
}

// A call still running when Shutdown's context ends sees its context
// cancelled and is answered with a result saying the server shut down.
func TestHTTPShutdownCancelsCallsAtTheDeadline(t *testing.T) {
	for _, stateful := range []bool{false, true} {
		t.Run(fmt.Sprint("stateful=", stateful), func(t *testing.T) {
			s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: stateful})
			body, hd := modernToolCall("1", "stuck")
			if stateful {
				sess := initLegacy(t, s.ts.URL, `{}`)
				body, hd = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`, []string{"Mcp-Session-Id", sess}
			}
			call := openStream(t, "POST", s.ts.URL, "", body, hd...)
			<-s.started
			if err := <-s.shutdownAsync(200 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Shutdown = %v, want the deadline's error", err)
			}
			if got := <-s.ended; got != context.Canceled.Error() {
				t.Fatalf("the handler's context ended with %q", got)
			}
			answer := decode(t, call.next())
			res, _ := answer["result"].(map[string]any)
			if res == nil || res["isError"] != true || !strings.Contains(string(mustJSON(t, res["content"])), "shut down before the tool finished") {
				t.Fatalf("the call's answer: %v", answer)
			}
			s.closeAndCheckGoroutines(t)
		})
	}
}

// During a shutdown, a running call can still ask the client and get the
// answer it POSTs.
func TestHTTPShutdownStillTakesTheClientsAnswers(t *testing.T) {
	s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: true})
	asked := make(chan struct{})
	s.srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		<-asked
		res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?", RequestedSchema: []byte(`{"type":"object","properties":{}}`)})
		if err != nil {
			return nil, err
		}
		return &ferry.ToolResult{Content: []ferry.Content{ferry.Text("action " + res.Action)}}, nil
	})
	sess := initLegacy(t, s.ts.URL, `{"elicitation":{}}`)
	call := openStream(t, "POST", s.ts.URL, sess, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	time.Sleep(50 * time.Millisecond) // the call is in flight
	errc := s.shutdownAsync(10 * time.Second)
	s.waitRefusing(t)
	close(asked)
	q := decode(t, call.next())
	status, _, body := post(t, s.ts.URL, "", sess, `{"jsonrpc":"2.0","id":`+string(mustJSON(t, q["id"]))+`,"result":{"action":"accept"}}`)
	if status != http.StatusAccepted {
		t.Fatalf("the client's answer: %d %s", status, body)
	}
	if answer := call.next(); !strings.Contains(answer, "action accept") {
		t.Fatalf("the call's answer: %s", answer)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	s.closeAndCheckGoroutines(t)
}

// Shutdown ends a GET stream with a clean end of the response, and a
// subscriptions/listen with its result, not an error; then a new GET is
// refused.
func TestHTTPShutdownEndsStreamsCleanly(t *testing.T) {
	s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: true})
	sess := initLegacy(t, s.ts.URL, `{}`)
	get := openStream(t, "GET", s.ts.URL, sess, "")
	listen := openStream(t, "POST", s.ts.URL, "",
		`{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMetaJSON+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
	if ack := listen.next(); !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("the listen's first event: %s", ack)
	}
	waitStreamOpen(t, s.srv, get)
	if ev := listen.next(); !strings.Contains(ev, "notifications/tools/list_changed") {
		t.Fatalf("the listen's event: %s", ev)
	}
	drainEvents(listen)
	if err := <-s.shutdownAsync(10 * time.Second); err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	get.ended()
	if get.status != http.StatusOK {
		t.Fatalf("the GET stream's status: %d", get.status)
	}
	res := decode(t, listen.next())
	if res["id"] != "l1" || res["error"] != nil || res["result"] == nil {
		t.Fatalf("the listen's answer: %v", res)
	}
	listen.ended()
	again := openStream(t, "GET", s.ts.URL, sess, "")
	if ev := again.next(); again.status != http.StatusServiceUnavailable || !strings.Contains(ev, "shutting down") {
		t.Fatalf("a GET after Shutdown: %d %s", again.status, ev)
	}
	s.closeAndCheckGoroutines(t)
}

// The order the docs give works with an http.Server: the handler's
// Shutdown, then the server's; Serve returns http.ErrServerClosed and
// nothing is left running.
func TestHTTPShutdownWithHTTPServer(t *testing.T) {
	s := newShutdownServer(t, nil)
	before := runtime.NumGoroutine()
	h := ferry.NewHTTPHandler(s.srv, &ferry.HTTPOptions{Stateful: true})
	hs := ferry.NewHTTPServer("127.0.0.1:0", h)
	ln, err := newLocalListener()
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	sess := initLegacy(t, url, `{}`)
	get := openStream(t, "GET", url, sess, "")
	waitStreamOpen(t, s.srv, get)
	body, hd := modernToolCall("1", "stuck")
	call := openStream(t, "POST", url, "", body, hd...)
	<-s.started
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = h.Shutdown(ctx)
	grace, cancelGrace := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelGrace()
	if err := errors.Join(err, hs.Shutdown(grace)); !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Shutdown = %v, want the handler's deadline only", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("Serve = %v", err)
	}
	if answer := call.next(); !strings.Contains(answer, "shut down before the tool finished") {
		t.Fatalf("the call's answer: %s", answer)
	}
	get.ended()
	<-s.ended
	noGoroutinesLeft(t, before)
}

// stdioClient is a client on the other end of an [ferry.IOTransport].
type stdioClient struct {
	in    *io.PipeWriter
	out   *io.PipeReader
	lines chan string
	done  chan error // Run's error
}

func startStdio(t *testing.T, srv *ferry.Server) *stdioClient {
	t.Helper()
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	c := &stdioClient{in: cw, out: sr, lines: make(chan string, 64), done: make(chan error, 1)}
	go func() { c.done <- srv.Run(context.Background(), &ferry.IOTransport{Reader: cr, Writer: sw}) }()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(sr)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { cw.Close(); sr.Close() })
	c.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`)
	c.next(t)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// close ends the client's side and waits for its reader.
func (c *stdioClient) close() {
	c.in.Close()
	c.out.Close()
	for range c.lines {
	}
}

func (c *stdioClient) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (c *stdioClient) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			t.Fatal("the connection ended")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10s")
	}
	return ""
}

// On stdio, Shutdown refuses new requests, ends a listen with its
// result, lets a running call finish (reading the client's answers
// meanwhile), and Run then returns nil; a Run after it is refused.
func TestStdioShutdownDrains(t *testing.T) {
	s := newShutdownServer(t, nil)
	c := startStdio(t, s.srv)
	c.send(t, `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMetaJSON+`}}`)
	if ack := c.next(t); !strings.Contains(ack, "acknowledged") {
		t.Fatalf("the listen's first line: %s", ack)
	}
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"gate","arguments":{}}}`)
	<-s.started
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Shutdown(context.Background()) }()
	if res := decode(t, c.next(t)); res["id"] != "l" || res["result"] == nil {
		t.Fatalf("the listen's answer: %v", res)
	}
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if refusal := c.next(t); !strings.Contains(refusal, `"id":2`) || !strings.Contains(refusal, "shutting down") {
		t.Fatalf("a request during Shutdown: %s", refusal)
	}
	// The client may still cancel or answer while the call runs.
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	close(s.release)
	if answer := c.next(t); !strings.Contains(answer, "gate done") {
		t.Fatalf("the call's answer: %s", answer)
	}
	if err := <-errc; err != nil {
		t.Fatalf("Shutdown = %v", err)
	}
	if err := <-c.done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if err := s.srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(""), Writer: io.Discard}); !errors.Is(err, ferry.ErrServerClosed) {
		t.Fatalf("Run after Shutdown = %v", err)
	}
	c.close()
	s.closeAndCheckGoroutines(t)
}

// On stdio, a call still running at Shutdown's deadline is cancelled and
// answered (a cancellation by the client gets no answer; this one does).
func TestStdioShutdownCancelsAtTheDeadline(t *testing.T) {
	s := newShutdownServer(t, nil)
	c := startStdio(t, s.srv)
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck","arguments":{}}}`)
	<-s.started
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	if got := <-s.ended; got != context.Canceled.Error() {
		t.Fatalf("the handler's context ended with %q", got)
	}
	if answer := c.next(t); !strings.Contains(answer, `"id":1`) || !strings.Contains(answer, "shut down before the tool finished") {
		t.Fatalf("the call's answer: %s", answer)
	}
	if err := <-c.done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	c.close()
	s.closeAndCheckGoroutines(t)
}

// waitStreamOpen changes the tools list until a change reaches the
// stream: then it is open, and its watch registered.
func waitStreamOpen(t *testing.T, srv *ferry.Server, st *sseStream) {
	t.Helper()
	for i := 0; ; i++ {
		srv.AddTool(ferry.Tool{Name: fmt.Sprint("new", i), Description: "A new tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
		select {
		case ev := <-st.events:
			if !strings.Contains(ev, "notifications/tools/list_changed") {
				t.Fatalf("the stream's event: %s", ev)
			}
			drainEvents(st)
			return
		case <-time.After(50 * time.Millisecond):
		}
		if i == 200 {
			t.Fatal("the stream did not open")
		}
	}
}

// drainEvents drops the list changes queued on st.
func drainEvents(st *sseStream) {
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				st.events = closedEvents() // keep it reading as ended
				return
			}
			if !strings.Contains(ev, "list_changed") {
				st.events <- ev // not a change: keep it (the test reads it next)
				return
			}
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

func closedEvents() chan string {
	ch := make(chan string)
	close(ch)
	return ch
}

func newLocalListener() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// A prompt handler still running at Shutdown's deadline sees its context
// cancelled too, and the client gets an answer.
func TestHTTPShutdownCancelsPromptHandlers(t *testing.T) {
	s := newShutdownServer(t, &ferry.HTTPOptions{})
	s.srv.AddPrompt(ferry.Prompt{Name: "slow", Description: "Waits."}, func(ctx context.Context, _ *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		s.started <- "slow"
		<-ctx.Done()
		s.ended <- ctx.Err().Error()
		return nil, ctx.Err()
	})
	call := openStream(t, "POST", s.ts.URL, "", `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"slow",`+modernMetaJSON+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "prompts/get", "Mcp-Name", "slow")
	<-s.started
	if err := <-s.shutdownAsync(200 * time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	if got := <-s.ended; got != context.Canceled.Error() {
		t.Fatalf("the handler's context ended with %q", got)
	}
	if answer := decode(t, call.next()); answer["id"] != float64(4) || (answer["error"] == nil && answer["result"] == nil) {
		t.Fatalf("the answer: %v", answer)
	}
	s.closeAndCheckGoroutines(t)
}

// With no CallTimeout, a tool call's context still ends at Shutdown's
// deadline.
func TestHTTPShutdownCancelsCallsWithoutATimeout(t *testing.T) {
	before := runtime.NumGoroutine()
	ended := make(chan error, 1)
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: -1}, Logger: discard})
	started := make(chan struct{})
	srv.AddTool(ferry.Tool{Name: "stuck", Description: "Runs until cancelled."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		close(started)
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	})
	h := ferry.NewHTTPHandler(srv, nil)
	ts := httptest.NewServer(h)
	body, hd := modernToolCall("1", "stuck")
	call := openStream(t, "POST", ts.URL, "", body, hd...)
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("the handler's context ended with %v", err)
	}
	if answer := call.next(); !strings.Contains(answer, "shut down before the tool finished") {
		t.Fatalf("the answer: %s", answer)
	}
	ts.Close()
	noGoroutinesLeft(t, before)
}

// A handler that polls ctx.Err() and never asks for ctx.Done() still
// sees its call cancelled at Shutdown's deadline: nothing watches the
// shutdown for it, so Err itself must ask (with a CallTimeout and
// without one).
func TestHTTPShutdownReachesAHandlerPollingErr(t *testing.T) {
	for _, timeout := range []time.Duration{0, -1} {
		t.Run(fmt.Sprint("CallTimeout=", timeout), func(t *testing.T) {
			ended := make(chan error, 1)
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{CallTimeout: timeout}, Logger: discard})
			started := make(chan struct{})
			srv.AddTool(ferry.Tool{Name: "poll", Description: "Polls its context."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				close(started)
				for ctx.Err() == nil {
					time.Sleep(2 * time.Millisecond)
				}
				ended <- ctx.Err()
				return nil, ctx.Err()
			})
			h := ferry.NewHTTPHandler(srv, nil)
			ts := httptest.NewServer(h)
			defer ts.Close()
			body, hd := modernToolCall("1", "poll")
			call := openStream(t, "POST", ts.URL, "", body, hd...)
			<-started
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			if err := h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Shutdown = %v", err)
			}
			select {
			case err := <-ended:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("the handler's context ended with %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the polling handler never saw the shutdown")
			}
			if answer := call.next(); !strings.Contains(answer, "shut down before the tool finished") {
				t.Fatalf("the answer: %s", answer)
			}
		})
	}
}

// addWaitingPrompt adds "wait", a prompt whose handler runs until its
// context ends.
func (s *shutdownServer) addWaitingPrompt() {
	s.srv.AddPrompt(ferry.Prompt{Name: "wait", Description: "Waits."}, func(ctx context.Context, _ *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		s.started <- "wait"
		<-ctx.Done()
		s.ended <- ctx.Err().Error()
		return nil, ctx.Err()
	})
}

// waitEnded fails unless n handlers end within 5s.
func (s *shutdownServer) waitEnded(t *testing.T, n int, what string) {
	t.Helper()
	for i := range n {
		select {
		case <-s.ended:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: %d of %d handlers still run 5s after", what, n-i, n)
		}
	}
}

// A client that sends a second request with the id of one still in
// flight in its stateful session gets an error for it; the first stays
// reachable, so Shutdown's deadline still cancels it. (Before, the second
// took the first's place in the session's table: the first was then out
// of reach of Shutdown, DELETE and notifications/cancelled, and a handler
// waiting on its context ran on for ever.)
func TestHTTPReusedRequestIDIsRefused(t *testing.T) {
	s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: true})
	s.addWaitingPrompt()
	sess := initLegacy(t, s.ts.URL, `{}`)
	first := openStream(t, "POST", s.ts.URL, sess, `{"jsonrpc":"2.0","id":"d","method":"prompts/get","params":{"name":"wait"}}`)
	<-s.started
	status, _, body := post(t, s.ts.URL, "", sess, `{"jsonrpc":"2.0","id":"d","method":"prompts/get","params":{"name":"wait"}}`)
	if status != 200 || !strings.Contains(body, `"id":"d"`) || !strings.Contains(body, `"error"`) || !strings.Contains(body, "in flight") {
		t.Fatalf("the second request with the id: %d %s", status, body)
	}
	// The same inside a batch.
	status, _, body = post(t, s.ts.URL, "", sess, `[{"jsonrpc":"2.0","id":"d","method":"prompts/get","params":{"name":"wait"}}]`)
	if status != 200 || !strings.Contains(body, `"id":"d"`) || !strings.Contains(body, "in flight") {
		t.Fatalf("the batch with the id: %d %s", status, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.h.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	s.waitEnded(t, 1, "after Shutdown's deadline")
	if answer := first.next(); !strings.Contains(answer, `"id":"d"`) {
		t.Fatalf("the first request's answer: %s", answer)
	}
	s.closeAndCheckGoroutines(t)
}

// The same on stdio: Run returns once Shutdown's deadline has cancelled
// what runs.
func TestStdioReusedRequestIDIsRefused(t *testing.T) {
	s := newShutdownServer(t, nil)
	s.addWaitingPrompt()
	c := startStdio(t, s.srv)
	c.send(t, `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"wait"}}`)
	<-s.started
	c.send(t, `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"wait"}}`)
	if ans := c.next(t); !strings.Contains(ans, `"id":7`) || !strings.Contains(ans, "in flight") {
		t.Fatalf("the second request with the id: %s", ans)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := s.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v", err)
	}
	s.waitEnded(t, 1, "after Shutdown's deadline")
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run still runs 5s after Shutdown's deadline")
	}
	c.close()
	s.closeAndCheckGoroutines(t)
}
