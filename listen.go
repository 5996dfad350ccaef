package ferry

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// listenFilter is what a subscriptions/listen stream asks to hear about.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// listen serves a modern subscriptions/listen: it acknowledges what it will
// send, then sends the changes the client opted into, each marked with the
// listen request's id, until the client closes the stream (or cancels the
// request on stdio; then nothing more is sent and no answer follows) or
// the connection shuts down (then the answer closes the stream). The
// watcher is registered before the acknowledgement is sent and holds every
// change until it is, so nothing is lost and the acknowledgement comes
// first.
func (s *Server) listen(ctx context.Context, r *request, p *wireParams, b []byte) ([]byte, error) {
	if r.out == nil {
		return b, NewError(CodeInvalidRequest, "subscriptions/listen needs a stream to the client")
	}
	var want listenFilter
	if p.Notifications != nil {
		want = *p.Notifications
	}
	s.mu.RLock()
	hasResources := s.resources.len() > 0 || s.templates.len() > 0
	s.mu.RUnlock()
	if !hasResources {
		want.ResourceSubscriptions, want.ResourcesListChanged = nil, false
	}
	meta := map[string]json.RawMessage{metaSubscriptionID: r.id}
	type marked struct {
		URI  string                     `json:"uri,omitempty"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var mu sync.Mutex // serializes sends, so that none overtakes the ack
	acked := make(chan struct{})
	send := func(method string, params any) {
		select {
		case <-acked:
		case <-ctx.Done():
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() == nil {
			_ = r.notify(method, params)
		}
	}
	stop := s.watch(&watcher{
		notify: func(method string) {
			if (method == "notifications/tools/list_changed" && want.ToolsListChanged) ||
				(method == "notifications/prompts/list_changed" && want.PromptsListChanged) ||
				(method == "notifications/resources/list_changed" && want.ResourcesListChanged) {
				send(method, marked{Meta: meta})
			}
		},
		updated: func(uri string) {
			if slices.Contains(want.ResourceSubscriptions, uri) {
				send("notifications/resources/updated", marked{URI: uri, Meta: meta})
			}
		},
	})
	defer stop()
	mu.Lock()
	err := r.notify("notifications/subscriptions/acknowledged", struct {
		Notifications listenFilter               `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}{want, meta})
	close(acked)
	mu.Unlock()
	if err != nil {
		return b, err
	}
	if err := r.await(ctx); err != nil {
		return b, err
	}
	r.resultMeta = map[string]any{metaSubscriptionID: r.id}
	return b, nil
}

// await blocks a long-lived request until the connection shuts down (nil)
// or the client goes (ctx's error), keeping an HTTP stream alive meanwhile.
func (r *request) await(ctx context.Context) error {
	var ka func() error
	if k, ok := r.out.(interface{ keepalive() error }); ok {
		ka = k.keepalive
	}
	return holdStream(ctx, r.closing, ka)
}

// holdStream keeps a long-lived stream open until ctx ends (its error) or
// closing is closed (nil). If ka is not nil it writes a keepalive every
// [keepaliveInterval], and a failed write ends the stream.
func holdStream(ctx context.Context, closing <-chan struct{}, ka func() error) error {
	var tick <-chan time.Time
	if ka != nil {
		t := time.NewTicker(keepaliveInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-closing:
			return nil
		case <-tick:
			if err := ka(); err != nil {
				return err
			}
		}
	}
}
