package ferry

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

// A panicking handler leaves what the buffer held before the response:
// safeDispatch returns its own result, not a nil buffer, so a caller that
// appends several responses into one buffer keeps the earlier ones.
func TestSafeDispatchKeepsBufferAfterPanic(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddPrompt(Prompt{Name: "p", Description: "Panics."}, func(context.Context, *GetPromptRequest) (*PromptResult, error) {
		panic("bug")
	})
	r := &request{srv: srv, method: "prompts/get", version: Version20251125}
	out, err := srv.safeDispatch(context.Background(), r, &wireParams{Name: "p"}, []byte(`[{"earlier":1},{`))
	if string(out) != `[{"earlier":1},{` {
		t.Errorf("buffer after a panic = %q; want what came before", out)
	}
	if CodeOf(err) != CodeInternalError || !strings.Contains(err.Error(), "ref ") {
		t.Errorf("err = %v; want -32603 with a ref", err)
	}
	b := srv.respond(context.Background(), r, &wireParams{Name: "p"}, []byte(`{"earlier":1},`))
	if !strings.HasPrefix(string(b), `{"earlier":1},{"jsonrpc":"2.0"`) {
		t.Errorf("respond after a panic = %q; want the earlier response kept", b)
	}
}
