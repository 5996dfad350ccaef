package ferry

import (
	"context"
	"encoding/json"
	"slices"
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
// request on stdio). It does not return before then.
func (s *Server) listen(ctx context.Context, r *request, p *wireParams) error {
	if r.out == nil {
		return NewError(CodeInvalidRequest, "subscriptions/listen needs a stream to the client")
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
	if err := r.notify("notifications/subscriptions/acknowledged", struct {
		Notifications listenFilter               `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}{want, meta}); err != nil {
		return err
	}
	type marked struct {
		URI  string                     `json:"uri,omitempty"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	stop := s.watch(&watcher{
		notify: func(method string) {
			send := (method == "notifications/tools/list_changed" && want.ToolsListChanged) ||
				(method == "notifications/prompts/list_changed" && want.PromptsListChanged) ||
				(method == "notifications/resources/list_changed" && want.ResourcesListChanged)
			if send {
				_ = r.notify(method, marked{Meta: meta})
			}
		},
		updated: func(uri string) {
			if slices.Contains(want.ResourceSubscriptions, uri) {
				_ = r.notify("notifications/resources/updated", marked{URI: uri, Meta: meta})
			}
		},
	})
	defer stop()
	<-ctx.Done()
	return ctx.Err()
}
