package ferry

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// listenFilter is what a subscriptions/listen stream asks to hear about.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs are the tasks whose status changes the stream hears of
	// (task_notify.go).
	TaskIDs []string `json:"taskIds,omitempty"`
}

const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// listenFilter returns what a subscriptions/listen asks for and the server
// can send, refusing more than [MaxSubscriptions] resources and tasks
// together or [MaxSubscriptionBytes] of URIs.
func (s *Server) listenFilter(p *wireParams) (listenFilter, error) {
	var want listenFilter
	if p.Notifications != nil {
		want = *p.Notifications
	}
	s.mu.RLock()
	hasResources := s.declaresLocked(capResources)
	s.mu.RUnlock()
	if !hasResources {
		want.ResourceSubscriptions, want.ResourcesListChanged = nil, false
	}
	if s.tasks == nil {
		want.TaskIDs = nil
	}
	if len(want.TaskIDs) > 0 && len(want.ResourceSubscriptions)+len(want.TaskIDs) > MaxSubscriptions {
		return want, NewError(CodeInvalidParams, "too many subscriptions: a listen may name at most %d resources and tasks together", MaxSubscriptions)
	}
	if len(want.ResourceSubscriptions) > MaxSubscriptions {
		return want, errTooManySubscriptions()
	}
	total := 0
	for _, uri := range want.ResourceSubscriptions {
		if err := checkSubscriptionURI("subscriptions/listen", uri); err != nil {
			return want, err
		}
		if total += len(uri); total > MaxSubscriptionBytes {
			return want, errSubscriptionBytes()
		}
	}
	return want, nil
}

// watcher returns a watcher of the changes f asks for.
func (f listenFilter) watcher() *watcher {
	subs := make(map[string]bool, len(f.ResourceSubscriptions))
	for _, uri := range f.ResourceSubscriptions {
		subs[uri] = true
	}
	var tasks map[string]bool
	if len(f.TaskIDs) > 0 {
		tasks = make(map[string]bool, len(f.TaskIDs))
		for _, id := range f.TaskIDs {
			tasks[id] = true
		}
	}
	return newWatcher(func(c change) bool {
		switch c.method {
		case "notifications/tools/list_changed":
			return f.ToolsListChanged
		case "notifications/prompts/list_changed":
			return f.PromptsListChanged
		case "notifications/resources/list_changed":
			return f.ResourcesListChanged
		case methodResourceUpdated:
			return subs[c.uri]
		case methodTaskStatus:
			return tasks[c.uri]
		}
		return false
	})
}

// changeSender sends the notifications of a long-lived stream, each within
// [NotificationWriteTimeout] or failing with [errStreamStalled]; the
// caller logs that failure, and the sender does not.
// trySendChange sends one if that needs no waiting, and reports whether it
// did.
type changeSender interface {
	sendChange(msg []byte) error
	trySendChange(msg []byte) bool
}

// listen serves a modern subscriptions/listen: it acknowledges what it will
// send, then sends the changes the client opted into, each marked with the
// listen request's id, until the client closes the stream (or cancels the
// request on stdio; then nothing more is sent and no answer follows) or
// the connection shuts down (then the answer closes the stream). The
// watcher is registered before the acknowledgement is sent (on stdio,
// before the next line is read) and queues every change until it is, so
// nothing is lost and the acknowledgement comes first. A client that stops
// reading is dropped after [NotificationWriteTimeout].
func (s *Server) listen(ctx context.Context, r *request, b []byte) ([]byte, error) {
	cs, ok := r.peer.out.(changeSender)
	if r.peer.out == nil || !ok {
		return b, NewError(CodeInvalidRequest, "subscriptions/listen needs a stream to the client")
	}
	want, err := s.listenFilter(r.params)
	if err != nil {
		return b, err
	}
	if len(want.TaskIDs) > 0 {
		if !r.caps.ext.has(ExtensionTasks) {
			return b, missingExtension(ExtensionTasks)
		}
		if want.TaskIDs, err = s.ackTasks(ctx, want.TaskIDs); err != nil {
			return b, err
		}
	}
	w := r.peer.watch
	if w == nil {
		w = want.watcher()
		w.caller = ctx
		stop := s.watch(w)
		defer stop()
	}
	var sent map[string]taskState // what the stream last told of each task
	if len(want.TaskIDs) > 0 {
		sent = make(map[string]taskState, len(want.TaskIDs))
		stop := s.tasks.listen(w, want.TaskIDs)
		defer stop()
		for _, id := range want.TaskIDs { // each task as it is now, after the acknowledgement
			w.push(change{method: methodTaskStatus, uri: id})
		}
	}
	meta := map[string]json.RawMessage{metaSubscriptionID: r.id}
	err = r.notify("notifications/subscriptions/acknowledged", struct {
		Notifications listenFilter               `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}{want, meta})
	if err != nil {
		return b, err
	}
	// Once the listen is cancelled nothing more is sent: a change made
	// after the cancellation was read is dropped.
	// A task's change is written by the stream's goroutine, which reads
	// the store.
	w.setDirect(func(c change) bool {
		return ctx.Err() != nil || c.method != methodTaskStatus && cs.trySendChange(r.appendMarkedChange(nil, c))
	})
	defer w.setDirect(nil)
	write := func(c change) error {
		if c.method == methodTaskStatus {
			if msg := s.appendTaskNote(ctx, r, nil, c.uri, sent); msg != nil {
				return cs.sendChange(msg)
			}
			return nil
		}
		return cs.sendChange(r.appendMarkedChange(nil, c))
	}
	var ka func() error
	if k, ok := r.peer.out.(interface{ keepalive() error }); ok {
		ka = k.keepalive
	}
	if err := holdStream(ctx, r.closing(), ka, w, write); err != nil {
		if errors.Is(err, errStreamStalled) {
			s.streamEnded(ctx, "subscriptions/listen", err)
		}
		return b, err
	}
	r.reply.resultMeta = map[string]any{metaSubscriptionID: r.id}
	return b, nil
}

// appendMarkedChange appends the notification of c on the listen stream of
// r: its params carry the listen request's id in _meta.
func (r *request) appendMarkedChange(b []byte, c change) []byte {
	params := []byte{'{'}
	if c.uri != "" {
		params = jsontext.AppendString(append(params, `"uri":`...), c.uri)
		params = append(params, ',')
	}
	params = append(params, `"_meta":{"`+metaSubscriptionID+`":`...)
	params = append(params, r.id...)
	params = append(params, "}}"...)
	return jsonrpc.AppendRequest(b, nil, c.method, params)
}
