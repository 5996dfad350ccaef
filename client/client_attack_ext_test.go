package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/client"
)

// This file attacks the client as a hostile server would. Every attack
// must end on its own (the tests use contexts without deadlines) with a
// clear error, and leave no goroutine behind.

// hostile answers the handshake of either era correctly and hands every
// tools/call to attack; notifications and the client's answers get 202.
func hostile(attack func(w http.ResponseWriter, r *http.Request, id json.RawMessage)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&m)
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "server/discover":
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete"}}`, m.ID)
		case "initialize":
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"1"}}}`, m.ID)
		case "tools/call":
			attack(w, r, m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	})
}

// stream starts an SSE answer.
func stream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// until writes ev again and again until the client goes away.
func until(w http.ResponseWriter, r *http.Request, ev string) {
	stream(w)
	for r.Context().Err() == nil {
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		w.(http.Flusher).Flush()
	}
}

// noLeak fails the test if it leaves goroutines behind. The attack tests
// do not run in parallel, so the count is theirs.
func noLeak(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
		}
	})
}

// within fails the test if f does not return in d: an attack that hangs
// the client shows as a failure, not as a test binary killed later.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
	}
}

// attackOptions are tight limits, so attacks end fast.
func attackOptions(protocol string) *client.Options {
	return &client.Options{Protocol: protocol, Limits: client.Limits{IdleTimeout: 300 * time.Millisecond, MaxStreamMessages: 50, MaxResponseBytes: 1 << 16}}
}

func TestClientResistsHostileHTTPServers(t *testing.T) {
	var elicited atomic.Int64
	cases := []struct {
		name   string
		attack func(w http.ResponseWriter, r *http.Request, id json.RawMessage)
		want   string
	}{
		{"endless notifications", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			until(w, r, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		}, "more than 50 messages"},
		{"endless keepalives", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			until(w, r, ": keepalive\n\n")
		}, "more than 50 messages"},
		{"one endless event of comments", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			until(w, r, strings.Repeat(": x\n", 1000))
		}, "larger than Limits.MaxResponseBytes"},
		{"huge event", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			until(w, r, "data: "+strings.Repeat("x", 1000)+"\n")
		}, "larger than Limits.MaxResponseBytes"},
		{"huge JSON", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, strings.Repeat(" ", 1000)); err != nil {
					return
				}
			}
		}, "larger than Limits.MaxResponseBytes"},
		{"endless answers to other ids", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			until(w, r, "data: {\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}\n\n")
		}, "more than 50 messages"},
		{"elicitation in a loop", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			until(w, r, "data: {\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"again?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}\n\n")
		}, "more than 50 messages"},
		{"slow loris JSON", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			w.WriteHeader(http.StatusOK)
			for r.Context().Err() == nil {
				_, _ = io.WriteString(w, " ")
				w.(http.Flusher).Flush()
				time.Sleep(20 * time.Millisecond)
			}
		}, "sent nothing for 300ms"},
		{"slow loris event", func(w http.ResponseWriter, r *http.Request, _ json.RawMessage) {
			stream(w)
			_, _ = io.WriteString(w, "data: ")
			for r.Context().Err() == nil {
				_, _ = io.WriteString(w, "x")
				w.(http.Flusher).Flush()
				time.Sleep(20 * time.Millisecond)
			}
		}, "sent nothing for 300ms"},
		{"silent, ignoring the request's end", func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
			stream(w)
			time.Sleep(500 * time.Millisecond) // a handler that does not watch its context
		}, "sent nothing for 300ms"},
		{"wrong id", func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":999,"result":{"content":[]}}`)
		}, "has id 999"},
		{"error for another id", func(w http.ResponseWriter, _ *http.Request, _ json.RawMessage) {
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":999,"error":{"code":-32603,"message":"not yours"}}`)
		}, "has id 999"},
		{"a request instead of an answer", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"method":"elicitation/create","params":{}}`, id)
		}, "not a response"},
		{"invalid UTF-8", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = fmt.Fprintf(w, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\"}]}}", id)
		}, "not valid UTF-8"},
		{"deep nesting", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":%s%s}}`, id, strings.Repeat("[", 20000), strings.Repeat("]", 20000))
		}, "not a JSON-RPC"},
		// The envelope rules the server holds its clients to: a member
		// twice, or in another case, is what two readers may take
		// differently; a result beside an error is neither answer.
		{"a result member twice", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]},"result":{"content":[],"isError":true}}`, id)
		}, "not a JSON-RPC"},
		{"a case variant of result", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"Result":{"content":[]},"error":{"code":-32603,"message":"x"}}`, id)
		}, "not a JSON-RPC"},
		{"a result and an error", func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[]},"error":{"code":-32603,"message":"x"}}`, id)
		}, "not a JSON-RPC"},
	}
	for _, tc := range cases {
		for _, protocol := range []string{client.Version20251125, client.Version20260728} {
			for _, socket := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/handler", tc.name, protocol)
				if socket {
					name = strings.TrimSuffix(name, "handler") + "socket"
				}
				t.Run(name, func(t *testing.T) {
					noLeak(t)
					h := hostile(tc.attack)
					opts := attackOptions(protocol)
					opts.Elicit = func(context.Context, *client.ElicitParams) (*client.ElicitResult, error) {
						elicited.Add(1)
						return &client.ElicitResult{Action: "decline"}, nil
					}
					var c *client.Client
					var err error
					if socket {
						ts := httptest.NewServer(h)
						defer ts.Close()
						c, err = client.DialHTTP(context.Background(), ts.URL, opts)
					} else {
						c, err = client.DialHandler(context.Background(), h, opts)
					}
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					within(t, 10*time.Second, func() {
						_, err = c.CallTool(context.Background(), "x", nil)
					})
					if err == nil || !strings.Contains(err.Error(), tc.want) {
						t.Errorf("err = %v, want one containing %q", err, tc.want)
					}
				})
			}
		}
	}
	if n := elicited.Load(); n > 4*50 {
		t.Errorf("Elicit was asked %d times by 4 attacks bounded at 50 messages", n)
	}
}

// A modern server that asks for input on every round is stopped after
// MaxInputRounds rounds.
func TestClientBoundsInputRounds(t *testing.T) {
	noLeak(t)
	rounds := 0
	h := hostile(func(w http.ResponseWriter, _ *http.Request, id json.RawMessage) {
		rounds++
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"s%d","inputRequests":{"a":{"method":"roots/list","params":{}}}}}`, id, rounds)
	})
	opts := attackOptions(client.Version20260728)
	opts.Limits.MaxInputRounds = 4
	opts.ListRoots = func(context.Context) ([]client.Root, error) { return nil, nil }
	c, err := client.DialHandler(context.Background(), h, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(context.Background(), "x", nil)
	if err == nil || !strings.Contains(err.Error(), "after 4 rounds") || rounds != 4 {
		t.Errorf("after %d rounds: err = %v", rounds, err)
	}
}

// stdioAttack starts the test binary as a stdio server in a hostile mode.
func stdioAttack(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), stdioEnv+"="+mode)
	return cmd
}

func TestClientResistsHostileStdioServers(t *testing.T) {
	noLeak(t)
	cases := []struct {
		name string
		cmd  func() *exec.Cmd
		want string
	}{
		// sleep reads nothing, answers nothing and ignores its stdin closing.
		{"never answers", func() *exec.Cmd { return exec.Command("sleep", "30") }, "sent nothing for 300ms"},
		// The child is killed; the grandchild keeps its output open.
		{"output held by a grandchild", func() *exec.Cmd { return exec.Command("sh", "-c", "sleep 30 & exec sleep 30") }, "sent nothing for 300ms"},
		{"floods requests", func() *exec.Cmd { return stdioAttack("flood") }, "more than 50 messages"},
		{"floods notifications", func() *exec.Cmd { return stdioAttack("chatter") }, "more than 50 messages"},
		{"invalid UTF-8", func() *exec.Cmd { return stdioAttack("latin1") }, "not valid UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits out Close's grace period
			var err error
			start := time.Now()
			within(t, 15*time.Second, func() {
				var c *client.Client
				c, err = client.DialCommand(context.Background(), tc.cmd(), attackOptions(client.Version20251125))
				if err == nil {
					_ = c.Close()
				}
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
			t.Logf("ended in %v: %v", time.Since(start).Round(time.Millisecond), err)
		})
	}
}

// hostileStdio is the test binary's hostile stdio server: it reads the
// first request, then attacks without ever answering it.
func hostileStdio(mode string) {
	if mode == "deaf" || mode == "orphan" {
		answerInitialize(mode)
	}
	var first [4096]byte
	_, _ = os.Stdin.Read(first[:])
	go func() { _, _ = io.Copy(io.Discard, os.Stdin) }() // the client's answers
	for i := 0; ; i++ {
		var err error
		switch mode {
		case "flood":
			_, err = fmt.Printf(`{"jsonrpc":"2.0","id":"s%d","method":"ping"}`+"\n", i)
		case "chatter":
			_, err = fmt.Println(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
		case "latin1":
			_, err = fmt.Print("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"data\":\"caf\xe9\"}}\n")
		}
		if err != nil {
			os.Exit(0)
		}
	}
}

// answerInitialize answers initialize, then as mode says: deaf stops
// reading its input without exiting (the client's writes fill the pipe and
// block); orphan leaves a child holding its output and exits when its
// input ends.
func answerInitialize(mode string) {
	var first struct {
		ID json.RawMessage `json:"id"`
	}
	in := bufio.NewReader(os.Stdin)
	line, _ := in.ReadBytes('\n')
	_ = json.Unmarshal(line, &first)
	fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":%q,"version":"1"}}}`+"\n", first.ID, client.Version20251125, mode)
	if mode == "deaf" {
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	child := exec.Command("sleep", "10")
	child.Stdout = os.Stdout
	_ = child.Start()
	_, _ = io.Copy(io.Discard, in)
	os.Exit(0)
}

// A server that stops reading its input cannot hold a request past its
// context: the write blocked on the full pipe gives up with it.
func TestClientStdioWriteHonoursContext(t *testing.T) {
	noLeak(t)
	c, err := client.DialCommand(context.Background(), stdioAttack("deaf"), &client.Options{Protocol: client.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 4<<20)})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	within(t, 10*time.Second, func() { _, err = c.CallTool(ctx, "echo", json.RawMessage(big)) })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's deadline", err)
	}
	// Before the fix the call waited for the deaf server for ever; the
	// bound leaves room for encoding 4 MiB under -race on a busy machine.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %v past a 300ms context", d)
	}
}

// A server that exits when its input closes, leaving a child that holds
// its output, is closed at once: Close does not wait out its grace period
// for the output to end.
func TestClientCloseOrphanHoldingOutput(t *testing.T) {
	c, err := client.DialCommand(context.Background(), stdioAttack("orphan"), &client.Options{Protocol: client.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	// Under -race the server, the test binary, sleeps a second as it exits;
	// the grace period is three.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
}
