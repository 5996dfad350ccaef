package ferry

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// The server's requests to a client carry ids nobody can guess: an answer
// with a guessed id is not delivered, the one with the id sent is.
func TestServerRequestIDsCannotBeGuessed(t *testing.T) {
	var calls pendingCalls
	sent := make(chan json.RawMessage, 1)
	got := make(chan *jsonrpc.Message, 1)
	go func() {
		m, err := calls.call(t.Context(), func(id json.RawMessage) error { sent <- id; return nil })
		if err != nil {
			t.Error(err)
		}
		got <- m
	}()
	id := <-sent
	if !regexp.MustCompile(`^"ferry-[A-Za-z0-9_-]{22}"$`).Match(id) {
		t.Errorf("id %s is not 128 random bits", id)
	}
	for _, guess := range []string{`"ferry-1"`, `"ferry-0"`, `1`, `"ferry-2"`} {
		if calls.deliver(&jsonrpc.Message{ID: json.RawMessage(guess)}) {
			t.Errorf("an answer with the guessed id %s was delivered", guess)
		}
	}
	select {
	case m := <-got:
		t.Fatalf("the call returned %v before its answer", m)
	case <-time.After(10 * time.Millisecond):
	}
	if !calls.deliver(&jsonrpc.Message{ID: id, Result: json.RawMessage(`{}`)}) {
		t.Fatal("the answer with the id sent was not delivered")
	}
	if m := <-got; string(m.ID) != string(id) {
		t.Errorf("delivered %s, want %s", m.ID, id)
	}
	seen := map[string]bool{}
	for range 100 {
		_, _ = calls.call(cancelled(), func(id json.RawMessage) error {
			if seen[string(id)] {
				t.Errorf("id %s was used twice", id)
			}
			seen[string(id)] = true
			return nil
		})
	}
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}
