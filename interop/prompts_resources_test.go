package interop

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// watchedURI is the fixture resource that the tool touch_watched changes.
	watchedURI = "test://watched-resource"
	// notifyTimeout bounds the wait for a notification the test caused.
	notifyTimeout = 5 * time.Second
	// metaSubscriptionID is the _meta key that marks what a modern
	// subscriptions/listen stream carries with the id of the listen request.
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// TestGoSDKPromptsResources drives prompts, resources, completions and a
// resource subscription with the go-sdk client, in the modern era (its
// default) and in legacy 2025-06-18.
//
// go-sdk v1.8.0 subscribes by era: in a legacy session Subscribe sends
// resources/subscribe and the update comes on the session's standalone GET
// SSE stream (HTTP) or on stdout (stdio); in the modern era Subscribe opens a
// subscriptions/listen stream with notifications.resourceSubscriptions =
// [uri] in the background and returns before the server has acknowledged it.
// Either way the update reaches ClientOptions.ResourceUpdatedHandler.
func TestGoSDKPromptsResources(t *testing.T) {
	tests := []struct {
		name          string
		transport     transportKind
		clientVersion string // if empty, the SDK's latest
		want          string // negotiated protocol version
	}{
		{name: "modern/http-stateless", transport: httpStateless, want: modernVersion},
		{name: "modern/http-stateful", transport: httpStateful, want: modernVersion},
		{name: "modern/stdio", transport: stdio, want: modernVersion},
		{name: v20250618 + "/http-stateful", transport: httpStateful, clientVersion: v20250618, want: v20250618},
		{name: v20250618 + "/stdio", transport: stdio, clientVersion: v20250618, want: v20250618},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
			defer cancel()

			notes := newNoteBox()
			conn := dial(ctx, t, tt.transport, "", tt.clientVersion, &clientSetup{
				opts:      mcp.ClientOptions{ResourceUpdatedHandler: notes.resourceUpdated},
				receiving: []mcp.Middleware{notes.watchAcks},
			})
			cs := conn.session
			if got := cs.InitializeResult().ProtocolVersion; got != tt.want {
				t.Fatalf("negotiated protocol version = %q, want %q", got, tt.want)
			}

			t.Run("GetPrompt", func(t *testing.T) { checkGetPrompt(ctx, t, cs) })
			t.Run("GetPrompt without a required argument", func(t *testing.T) { checkGetPromptMissingArg(ctx, t, cs) })
			t.Run("ReadResource of a template URI", func(t *testing.T) { checkReadTemplate(ctx, t, cs) })
			t.Run("Complete", func(t *testing.T) { checkComplete(ctx, t, cs) })
			t.Run("Subscribe", func(t *testing.T) {
				checkSubscribe(ctx, t, conn, tt.transport, tt.want == modernVersion, notes)
			})
		})
	}
}

func checkGetPrompt(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{
		Name:      "test_prompt_with_arguments",
		Arguments: map[string]string{"arg1": "a", "arg2": "b"},
	})
	if err != nil {
		t.Fatalf("GetPrompt: %v", err)
	}
	var contents []mcp.Content
	for _, m := range res.Messages {
		contents = append(contents, m.Content)
	}
	got := strings.Join(texts(contents), "\n")
	for _, want := range []string{"arg1='a'", "arg2='b'"} {
		if !strings.Contains(got, want) {
			t.Errorf("GetPrompt message text = %q, want it to contain %q", got, want)
		}
	}
}

func checkGetPromptMissingArg(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{
		Name:      "test_prompt_with_arguments",
		Arguments: map[string]string{"arg1": "a"},
	})
	var werr *jsonrpc.Error
	switch {
	case err == nil:
		t.Errorf("GetPrompt without arg2 = %+v, want a protocol error with code %d", res, jsonrpc.CodeInvalidParams)
	case !errors.As(err, &werr):
		t.Errorf("GetPrompt without arg2: error %v (%T), want a JSON-RPC error", err, err)
	case werr.Code != jsonrpc.CodeInvalidParams:
		t.Errorf("GetPrompt without arg2: error code %d (%v), want %d", werr.Code, werr, jsonrpc.CodeInvalidParams)
	}
}

func checkReadTemplate(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	const uri = "test://template/123/data"
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("ReadResource(%s): %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("ReadResource(%s) has %d contents, want 1", uri, len(res.Contents))
	}
	if c := res.Contents[0]; c.URI != uri || !strings.Contains(c.Text, "123") {
		t.Errorf("ReadResource(%s) = {URI: %q, Text: %q}, want that URI and text containing 123", uri, c.URI, c.Text)
	}
}

func checkComplete(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
	res, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"},
		Argument: mcp.CompleteParamsArgument{Name: "arg1", Value: "te"},
	})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if diff := cmp.Diff([]string{"test", "testing", "tested"}, res.Completion.Values); diff != "" {
		t.Errorf("Complete(arg1, %q) values mismatch (-want +got):\n%s", "te", diff)
	}
}

// checkSubscribe subscribes to the watched resource, changes it with
// touch_watched, and waits for notifications/resources/updated.
func checkSubscribe(ctx context.Context, t *testing.T, conn *sdkConn, tr transportKind, modern bool, notes *noteBox) {
	cs := conn.session
	before := readText(ctx, t, cs, watchedURI)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	var subscriptionID any
	switch {
	case modern:
		// Subscribe has only sent subscriptions/listen; the server is
		// listening once it acknowledges.
		select {
		case ack := <-notes.acks:
			if diff := cmp.Diff([]string{watchedURI}, ack.Notifications.ResourceSubscriptions); diff != "" {
				t.Errorf("acknowledged resourceSubscriptions mismatch (-want +got):\n%s", diff)
			}
			subscriptionID = ack.Meta[metaSubscriptionID]
			if subscriptionID == nil {
				t.Errorf("acknowledgement _meta = %v, want a %s", ack.Meta, metaSubscriptionID)
			}
		case <-time.After(notifyTimeout):
			t.Fatalf("no notifications/subscriptions/acknowledged within %v of Subscribe", notifyTimeout)
		}
	case tr == httpStateful:
		// The update travels on the standalone GET stream, which the client
		// opens by itself after initialize.
		waitGETStream(t, conn.wire)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "touch_watched", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("CallTool(touch_watched): %v", err)
	}
	if res.IsError {
		t.Fatalf("CallTool(touch_watched) isError, content %q", texts(res.Content))
	}
	got := notes.waitUpdated(t, watchedURI)
	if id := got.Meta[metaSubscriptionID]; modern && !cmp.Equal(id, subscriptionID) {
		t.Errorf("notifications/resources/updated _meta %s = %v, want %v as acknowledged", metaSubscriptionID, id, subscriptionID)
	} else if !modern && id != nil {
		t.Errorf("legacy notifications/resources/updated carries _meta %s = %v, want none", metaSubscriptionID, id)
	}
	if after := readText(ctx, t, cs, watchedURI); after == before {
		t.Errorf("%s reads %q after the update, as before it", watchedURI, after)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Errorf("Unsubscribe: %v", err)
	}
}

// readText returns the text of the single content of the resource at uri.
func readText(ctx context.Context, t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("ReadResource(%s): %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("ReadResource(%s) has %d contents, want 1", uri, len(res.Contents))
	}
	return res.Contents[0].Text
}

// waitGETStream waits until the client's standalone GET SSE stream has been
// answered, and fails t unless it was answered 200.
func waitGETStream(t *testing.T, w *wireLog) {
	t.Helper()
	deadline := time.Now().Add(notifyTimeout)
	for {
		if statuses := w.statuses(http.MethodGet); len(statuses) > 0 {
			if statuses[0] != http.StatusOK {
				t.Fatalf("GET SSE stream status = %d, want %d", statuses[0], http.StatusOK)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client opened no GET SSE stream within %v of initialize", notifyTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noteBox collects what the server pushes to the client outside responses.
type noteBox struct {
	updates chan *mcp.ResourceUpdatedNotificationParams
	acks    chan *mcp.SubscriptionsAcknowledgedParams
}

func newNoteBox() *noteBox {
	return &noteBox{
		updates: make(chan *mcp.ResourceUpdatedNotificationParams, 16),
		acks:    make(chan *mcp.SubscriptionsAcknowledgedParams, 16),
	}
}

// resourceUpdated is a ClientOptions.ResourceUpdatedHandler. Beyond the
// buffer, notifications are dropped: the test fails waiting for them.
func (b *noteBox) resourceUpdated(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
	select {
	case b.updates <- req.Params:
	default:
	}
}

// watchAcks is a receiving middleware that records each
// notifications/subscriptions/acknowledged, for which go-sdk has no handler
// option.
func (b *noteBox) watchAcks(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.SubscriptionsAcknowledgedParams); ok && method == "notifications/subscriptions/acknowledged" {
			select {
			case b.acks <- p:
			default:
			}
		}
		return next(ctx, method, req)
	}
}

// waitUpdated waits for notifications/resources/updated for uri, failing t
// after notifyTimeout. Updates for other URIs fail t too.
func (b *noteBox) waitUpdated(t *testing.T, uri string) *mcp.ResourceUpdatedNotificationParams {
	t.Helper()
	timeout := time.After(notifyTimeout)
	var others []string
	for {
		select {
		case p := <-b.updates:
			if p.URI == uri {
				if len(others) > 0 {
					t.Errorf("notifications/resources/updated for URIs not subscribed to: %q", others)
				}
				return p
			}
			others = append(others, p.URI)
		case <-timeout:
			t.Fatalf("no notifications/resources/updated for %s within %v of touch_watched (others: %q)", uri, notifyTimeout, others)
			return nil
		}
	}
}
