package ferry_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

const (
	legacyInitElicit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}` + "\n"
	modernElicitMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
)

// A request cancelled with notifications/cancelled gets no answer at all:
// not even an empty line, which line-oriented clients fail to parse.
func TestStdioCancelledRequestWritesNothing(t *testing.T) {
	srv := newConformanceServer(t, nil)
	cr, cw := io.Pipe()
	var out ferrytest.Buffer
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: cr, Writer: &out}) }()
	_, _ = io.WriteString(cw, legacyInitElicit)
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm"}}`+"\n")
	waitFor(t, &out, `"elicitation/create"`)
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`+"\n")
	_, _ = io.WriteString(cw, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	waitFor(t, &out, `"id":3`)
	cw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			t.Errorf("output line %d is empty; output:\n%s", i+1, out.String())
		}
	}
}

// When the client closes its end while a tool waits for the client's answer
// to elicitation/create, the answer can never come: Run must cancel the
// tool and return, rather than wait for it forever.
func TestStdioRunReturnsAtEOFWhileToolAwaitsClient(t *testing.T) {
	srv := newConformanceServer(t, nil)
	in := legacyInitElicit + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm"}}` + "\n"
	done := make(chan error, 1)
	go func() {
		done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: io.Discard})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return 3s after its input ended")
	}
}

// A prompt handler that calls Elicit in a modern request must not crash the
// server: tools/call, prompts/get and resources/read may all answer
// input_required in 2026-07-28.
func TestModernElicitOutsideToolsDoesNotPanic(t *testing.T) {
	srv := ferry.NewServer("s", "1", nil)
	srv.AddPrompt(ferry.Prompt{Name: "ask", Description: "Asks the user."}, func(ctx context.Context, req *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		if _, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "?"}); err != nil {
			return nil, err
		}
		return &ferry.PromptResult{}, nil
	})
	in := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"ask",` + modernElicitMeta + `}}` + "\n"
	var out bytes.Buffer
	if err := srv.Run(t.Context(), &ferry.IOTransport{Reader: strings.NewReader(in), Writer: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"id":1`) {
		t.Errorf("no answer to prompts/get: %s", out.String())
	}
}

// waitFor waits until out contains s.
func waitFor(t *testing.T, out *ferrytest.Buffer, s string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; output:\n%s", s, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// On stdio, at most MaxRequestsInFlight requests run at once: a request
// read beyond them waits for a place, and is served once one frees, so a
// client that pipelines many requests gets every answer.
func TestStdioCapsRequestsInFlight(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1}, Logger: discard})
	release := make(chan struct{})
	var running, most atomic.Int32
	srv.AddTool(ferry.Tool{Name: "hold", Description: "Waits to be released."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		return ferry.NewResult(ferry.Text("done")), nil
	})
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: cr, Writer: sw}) }()
	const n = ferry.MaxRequestsInFlight + 50
	go func() {
		for i := 1; i <= n; i++ {
			_, _ = fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", i)
		}
		cw.Close()
	}()
	for running.Load() < ferry.MaxRequestsInFlight {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a request beyond the cap would start now
	if got := most.Load(); got != ferry.MaxRequestsInFlight {
		t.Errorf("%d handlers ran at once; want the cap, %d", got, ferry.MaxRequestsInFlight)
	}
	close(release)
	out := bufio.NewReader(sr)
	for range n {
		if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"done"`) {
			t.Fatalf("answer %q: %v", line, err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A request waiting for the client's answer gives its place in flight up:
// more such requests than MaxRequestsInFlight do not stop the connection
// from reading the answers they wait for. Questions beyond
// MaxRequestsInFlight waiting at once fail, and their calls say so.
func TestStdioRequestsWaitingForTheClientTakeNoPlace(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1}, Logger: discard})
	srv.AddTool(ferry.Tool{Name: "confirm", Description: "Asks the user."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
		if err != nil {
			return nil, err
		}
		return ferry.NewResult(ferry.Text("answered " + res.Action)), nil
	})
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context(), &ferry.IOTransport{Reader: cr, Writer: sw}) }()
	var wmu sync.Mutex // guards writes to cw
	send := func(line string) {
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = io.WriteString(cw, line+"\n")
	}
	send(legacyInitElicit)
	const n = ferry.MaxRequestsInFlight + 20
	sent := make(chan struct{}) // the client answers only once it has sent every call
	go func() {
		for i := 2; i < n+2; i++ {
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`, i))
		}
		close(sent)
	}()
	out := bufio.NewScanner(sr)
	out.Buffer(nil, 1<<20)
	results, accepted := 0, 0
	for results < n && out.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(out.Bytes(), &msg)
		switch {
		case msg.Method == "elicitation/create":
			answer := `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":{"action":"accept","content":{}}}`
			go func() { <-sent; send(answer) }()
		case strings.Contains(out.Text(), "answered accept"):
			results++
			accepted++
		case strings.Contains(out.Text(), "unavailable:"):
			results++
		}
	}
	if results != n || accepted < ferry.MaxRequestsInFlight {
		t.Fatalf("%d of %d calls answered, %d accepted (%v)", results, n, accepted, out.Err())
	}
	cw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Requests waiting for answers the client never gives are bounded too: at
// most MaxRequestsInFlight wait per connection, and a question beyond
// fails at once, so its call ends.
func TestStdioRequestsWaitingForTheClientAreBounded(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Limits: ferry.Limits{MaxCallsPerCaller: -1, CallRate: -1}, Logger: discard})
	var started, failed atomic.Int32
	srv.AddTool(ferry.Tool{Name: "confirm", Description: "Asks the user."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
		started.Add(1)
		_, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?", RequestedSchema: json.RawMessage(`{"type":"object"}`)})
		if errors.Is(err, ferry.ErrNoClientStream) {
			failed.Add(1)
		}
		return nil, err
	})
	cr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &ferry.IOTransport{Reader: cr, Writer: io.Discard}) }()
	_, _ = io.WriteString(cw, legacyInitElicit)
	const n = 3 * ferry.MaxRequestsInFlight
	go func() {
		for i := 2; i < n+2; i++ {
			if _, err := fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`+"\n", i); err != nil {
				return
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for started.Load() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if got, want := started.Load()-failed.Load(), int32(ferry.MaxRequestsInFlight); got != want {
		t.Errorf("%d handlers wait for the client (of %d started); want %d", got, started.Load(), want)
	}
	cancel()
	cw.Close()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
}

// On stdio, at most MaxRequestsInFlight subscriptions/listen streams are
// open at once: one more is refused at once, so listens cannot grow
// without bound.
func TestStdioListensAreBounded(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddTool(ferry.Tool{Name: "t", Description: "A tool."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, &ferry.IOTransport{Reader: cr, Writer: sw}) }()
	go func() {
		for i := 1; i <= ferry.MaxRequestsInFlight+1; i++ {
			_, _ = fmt.Fprintf(cw, `{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", i)
		}
	}()
	out := bufio.NewScanner(sr)
	want := fmt.Sprintf(`"id":%d,"error"`, ferry.MaxRequestsInFlight+1)
	found := false
	for !found && out.Scan() {
		found = strings.Contains(out.Text(), want) && strings.Contains(out.Text(), "too many subscriptions/listen")
	}
	if !found {
		t.Errorf("listen %d was not refused (%v)", ferry.MaxRequestsInFlight+1, out.Err())
	}
	cancel()
	cw.Close()
	go func() { _, _ = io.Copy(io.Discard, sr) }()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v", err)
	}
}
