package ferry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// pingBatch returns a batch of n pings.
func pingBatch(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
	}
	return "[" + strings.Join(items, ",") + "]"
}

func TestBatchLimits(t *testing.T) {
	tests := []struct {
		name  string
		opts  HTTPOptions
		batch string
		want  []string // in the answer, in order
		count int      // answers in the array, or -1 for a single error
	}{
		{
			name:  "a batch over the item limit is refused whole",
			batch: pingBatch(DefaultMaxBatchItems + 1),
			want:  []string{"the batch has 101 messages; at most 100 are served"},
			count: -1,
		},
		{
			name:  "a batch at the item limit is served",
			batch: pingBatch(DefaultMaxBatchItems),
			count: DefaultMaxBatchItems,
		},
		{
			name:  "answers past the reply limit are errors and the rest is not served",
			opts:  HTTPOptions{Limits: HTTPLimits{MaxBatchReplyBytes: 100}},
			batch: pingBatch(5),
			want: []string{`"id":1,"result":{}`, `"id":2,"result":{}`, `"id":3,"error"`, "limit of 100 bytes, so its answer was dropped",
				`"id":4,"error"`, "limit of 100 bytes, so this request was not served"},
			count: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHTTPHandler(newWatchedServer(&lockedBuffer{}), &tt.opts)
			id := initialize(t, h, `{}`)
			body := post(h, id, tt.batch).Body.String()
			var arr []json.RawMessage
			if tt.count == -1 {
				if json.Unmarshal([]byte(body), &arr) == nil {
					t.Errorf("got an array of %d answers, want one error", len(arr))
				}
			} else if err := json.Unmarshal([]byte(body), &arr); err != nil || len(arr) != tt.count {
				t.Errorf("got %d answers (%v), want %d: %.300s", len(arr), err, tt.count, body)
			}
			rest := body
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("answer lacks %q (in order): %.600s", w, body)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// countingPeer serves every request with an empty result, counting them,
// and cancels ctx after the first.
type countingPeer struct {
	served int
	cancel context.CancelFunc
}

func (p *countingPeer) serveRequest(_ int, in *incoming) []byte {
	p.served++
	p.cancel()
	return append(jsonrpc.AppendResultHead(nil, in.m.ID), "{}}"...)
}
func (p *countingPeer) deliver(*jsonrpc.Message)               {}
func (p *countingPeer) notified(*jsonrpc.Message, *wireParams) {}

// A batch stops being served when its client goes.
func TestBatchStopsWhenTheClientIsGone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	peer := &countingPeer{cancel: cancel}
	items, err := NewServer("s", "1", nil).decodeBatch([]byte(pingBatch(50)), DefaultMaxBatchItems)
	if err != nil {
		t.Fatal(err)
	}
	if out := serveBatch(ctx, items.items, peer, batchLimits{}.orDefaults()); out != nil {
		t.Errorf("a batch whose client is gone was answered: %.100s", out)
	}
	if peer.served != 1 {
		t.Errorf("%d requests served after the client went, want 1", peer.served)
	}
}
