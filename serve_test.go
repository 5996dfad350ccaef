package ferry

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// A panicking handler leaves what the buffer held before the response:
// serve answers -32603 with a ref after it, so a caller that appends
// several responses into one buffer (a batch) keeps the earlier ones.
func TestServeKeepsBufferAfterPanic(t *testing.T) {
	srv := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	srv.AddPrompt(Prompt{Name: "p", Description: "Panics."}, func(context.Context, *GetPromptRequest) (*PromptResult, error) {
		panic("bug")
	})
	r := newRequest(context.Background(), &jsonrpc.Message{ID: json.RawMessage("1"), Method: "prompts/get"}, &wireParams{Name: "p"}, peer{})
	r.version = Version20251125
	srv.resolve(r)
	b := srv.serve(r.context(), r, []byte(`{"earlier":1},`))
	if !strings.HasPrefix(string(b), `{"earlier":1},{"jsonrpc":"2.0"`) || !strings.Contains(string(b), `"code":-32603`) ||
		!strings.Contains(string(b), "ref ") {
		t.Errorf("serve after a panic = %q; want the earlier response kept, then -32603 with a ref", b)
	}
}
