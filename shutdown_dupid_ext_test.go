package ferry_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

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
