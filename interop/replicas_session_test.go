package interop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// eventTimeout bounds the wait for something the client must hear of.
const eventTimeout = 10 * time.Second

// sdkReplicaClient is a Go SDK client session whose requests go round
// robin over a cluster's replicas, and what its handlers heard.
type sdkReplicaClient struct {
	cs      *mcp.ClientSession
	rr      *roundRobin
	updated chan string   // the URIs of notifications/resources/updated
	changed chan struct{} // notifications/tools/list_changed
	logs    chan string   // the data of notifications/message
}

// dialReplicas connects a Go SDK client, in a legacy stateful session
// (2025-11-25), to the cluster through a round-robin transport that keeps
// its trail. Its elicitation handler answers the name "echo <question>",
// its sampling handler the text "echo <prompt>". detach sets the
// transport's [roundRobin.detach].
func dialReplicas(t *testing.T, c *cluster, detach bool) *sdkReplicaClient {
	t.Helper()
	rc := &sdkReplicaClient{updated: make(chan string, 64), changed: make(chan struct{}, 64), logs: make(chan string, 64)}
	rc.rr = c.newRoundRobin(newPooledTransport(t), true)
	rc.rr.detach = detach
	clientLog := new(ferrytest.Buffer)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests, in order:\n%s", trailString(rc.rr.trailCopy()))
			if s := clientLog.String(); s != "" {
				t.Logf("go-sdk client log:\n%s", s)
			}
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "ferry-xrep", Version: "v0.0.0"}, &mcp.ClientOptions{
		Logger: slog.New(slog.NewTextHandler(clientLog, &slog.HandlerOptions{Level: slog.LevelDebug})),
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "echo " + req.Params.Message}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) { //nolint:staticcheck // deprecated from 2026-07-28 only; the legacy sessions tested here have it
			var prompt string
			if len(req.Params.Messages) > 0 {
				if tc, ok := req.Params.Messages[0].Content.(*mcp.TextContent); ok {
					prompt = tc.Text
				}
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "echo-model", Content: &mcp.TextContent{Text: "echo " + prompt}}, nil //nolint:staticcheck // deprecated from 2026-07-28 only; the legacy sessions tested here have it
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			rc.updated <- req.Params.URI
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			rc.changed <- struct{}{}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { //nolint:staticcheck // deprecated from 2026-07-28 only; the legacy sessions tested here have it
			rc.logs <- fmt.Sprint(req.Params.Data)
		},
	})
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: c.urls[0], HTTPClient: &http.Client{Transport: rc.rr}, MaxRetries: -1}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: v20251125})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() }) // a no-op once the test has closed it
	rc.cs = cs
	if cs.ID() == "" {
		t.Fatal("the session has no Mcp-Session-Id: it is not a stateful legacy session")
	}
	return rc
}

// callNonce calls tool with a fresh nonce and returns the nonce and the
// tool's structured result; it fails t on an error or an answer to another
// request.
func (rc *sdkReplicaClient) callNonce(ctx context.Context, t *testing.T, tool string) (string, map[string]any) {
	t.Helper()
	nonce := randomHex(8)
	res, err := rc.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"nonce": nonce}})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("CallTool(%s) failed: %s", tool, texts(res.Content))
	}
	out, ok := res.StructuredContent.(map[string]any)
	if !ok || out["nonce"] != nonce {
		t.Fatalf("CallTool(%s) with nonce %s answered %v: the answer of another request", tool, nonce, res.StructuredContent)
	}
	return nonce, out
}

// waitFor returns the first value of ch that want accepts, skipping the
// others; it fails t after eventTimeout.
func waitFor[T any](t *testing.T, ch <-chan T, what string, want func(T) bool) T {
	t.Helper()
	timeout := time.After(eventTimeout)
	for {
		select {
		case v := <-ch:
			if want(v) {
				return v
			}
		case <-timeout:
			t.Fatalf("no %s within %v", what, eventTimeout)
		}
	}
}

// One stateful legacy session of the official Go SDK client, its requests
// sent to the replicas in turn, gets every live part of the session from
// whichever replica holds it: questions answered on another replica,
// cancellations, subscriptions, list changes, its log level, and its end.
func TestReplicasServeOneSession(t *testing.T) {
	for _, st := range sharedStores {
		for _, n := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/%d replicas", st.name, n), func(t *testing.T) {
				t.Parallel()
				c := newCluster(t, n, st, nil)
				t.Run("elicitation", func(t *testing.T) { testReplicaElicitation(t, c) })
				t.Run("sampling", func(t *testing.T) { testReplicaSampling(t, c) })
				t.Run("cancellation", func(t *testing.T) { testReplicaCancellation(t, c) })
				t.Run("subscription", func(t *testing.T) { testReplicaSubscription(t, c) })
				t.Run("list changes", func(t *testing.T) { testReplicaListChanges(t, c) })
				t.Run("log level", func(t *testing.T) { testReplicaLogLevel(t, c) })
				t.Run("delete", func(t *testing.T) { testReplicaDelete(t, c) })
			})
		}
	}
}

// The tool elicits on one replica; the client's answer is posted to the
// other, and reaches the tool.
func testReplicaElicitation(t *testing.T, c *cluster) {
	rc := dialReplicas(t, c, false)
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	for range 4 {
		nonce, out := rc.callNonce(ctx, t, "ask")
		if want := "accept echo nonce " + nonce; out["answer"] != want {
			t.Errorf("ask answered %q, want %q", out["answer"], want)
		}
		checkOther(t, rc.rr, "tools/call", "response")
	}
	checkSpread(t, c, rc.rr)
}

// The tool asks the client's model on one replica; the model's answer is
// posted to the other.
func testReplicaSampling(t *testing.T, c *cluster) {
	rc := dialReplicas(t, c, false)
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	for range 4 {
		nonce, out := rc.callNonce(ctx, t, "sample")
		if want := "echo-model: echo nonce " + nonce; out["answer"] != want {
			t.Errorf("sample answered %q, want %q", out["answer"], want)
		}
		checkOther(t, rc.rr, "tools/call", "response")
	}
	checkSpread(t, c, rc.rr)
}

// The client cancels a call's context: its notifications/cancelled goes to
// the other replica, which relays it, and the tool's context ends.
func testReplicaCancellation(t *testing.T, c *cluster) {
	// Detached: else the client's disconnect would cancel the call on its
	// own replica, whatever became of notifications/cancelled.
	rc := dialReplicas(t, c, true)
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	callCtx, cancelCall := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := rc.cs.CallTool(callCtx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"nonce": randomHex(4)}})
		done <- err
	}()
	var ran int
	select {
	case ran = <-c.started:
	case <-time.After(eventTimeout):
		t.Fatal("the wait tool did not start")
	}
	cancelCall()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool after cancelling its context: %v, want context.Canceled", err)
	}
	select {
	case w := <-c.waits:
		if w.replica != ran || w.err != context.Canceled.Error() {
			t.Errorf("the wait tool on replica %d ended with %q on replica %d, want %q", ran, w.err, w.replica, context.Canceled)
		}
	case <-time.After(eventTimeout):
		t.Fatalf("the wait tool on replica %d was not cancelled within %v", ran, eventTimeout)
	}
	// The SDK sends notifications/cancelled as the call returns; wait
	// for it to be answered.
	deadline := time.Now().Add(eventTimeout)
	for {
		if h, ok := lastHop(rc.rr.trailCopy(), "notifications/cancelled"); (ok && h.status != 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	checkOther(t, rc.rr, "tools/call", "notifications/cancelled")
	if h, _ := lastHop(rc.rr.trailCopy(), "tools/call"); h.replica != ran {
		t.Errorf("the call was posted to replica %d but ran on %d", h.replica, ran)
	}
	checkSpread(t, c, rc.rr)
}

// The client subscribes (on one replica); an update made on each replica
// reaches the client through its GET stream, wherever that is.
func testReplicaSubscription(t *testing.T, c *cluster) {
	rc := dialReplicas(t, c, false)
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	uris := make([]string, len(c.srv))
	for i := range c.srv {
		uris[i] = fmt.Sprintf("doc://item/%s-%d", randomHex(4), i)
		if err := rc.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uris[i]}); err != nil {
			t.Fatalf("Subscribe(%s): %v", uris[i], err)
		}
	}
	getReplica := waitGET(t, rc.rr)
	for i, srv := range c.srv {
		srv.NotifyResourceUpdated(uris[i])
		waitFor(t, rc.updated, fmt.Sprintf("update of %s made on replica %d (GET stream on %d)", uris[i], i, getReplica),
			func(u string) bool { return u == uris[i] })
	}
	checkSpread(t, c, rc.rr)
}

// waitGET waits for the client's one open GET stream and returns its
// replica.
func waitGET(t *testing.T, rr *roundRobin) int {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	for {
		if gets := rr.openGets(); len(gets) == 1 {
			return gets[0].replica
		} else if len(gets) > 1 || time.Now().After(deadline) {
			t.Fatalf("%d GET streams open, want 1:\n%s", len(gets), trailString(rr.trailCopy()))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A tool added on each replica in turn reaches the client as
// notifications/tools/list_changed.
func testReplicaListChanges(t *testing.T, c *cluster) {
	rc := dialReplicas(t, c, false)
	getReplica := waitGET(t, rc.rr)
	for i, srv := range c.srv {
		name := fmt.Sprintf("late_%s_%d", randomHex(4), i)
		srv.AddTool(ferry.Tool{Name: name, Description: "Added late."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			return ferry.NewResult(ferry.Text("late")), nil
		})
		waitFor(t, rc.changed, fmt.Sprintf("list change made on replica %d (GET stream on %d)", i, getReplica),
			func(struct{}) bool { return true })
	}
	checkSpread(t, c, rc.rr)
}

// logging/setLevel posted to one replica applies to a call on the other.
func testReplicaLogLevel(t *testing.T, c *cluster) {
	rc := dialReplicas(t, c, false)
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	// At the default level (info) the debug log is not sent: the first
	// log of the call is its info log.
	nonce, _ := rc.callNonce(ctx, t, "log")
	if got := waitFor(t, rc.logs, "log", func(string) bool { return true }); got != "info "+nonce {
		t.Fatalf("at the default level the first log is %q, want %q", got, "info "+nonce)
	}
	if err := rc.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil { //nolint:staticcheck // deprecated from 2026-07-28 only; the legacy sessions tested here have it
		t.Fatalf("SetLoggingLevel: %v", err)
	}
	nonce, _ = rc.callNonce(ctx, t, "log")
	if got := waitFor(t, rc.logs, "log", func(string) bool { return true }); got != "debug "+nonce {
		t.Errorf("after logging/setLevel debug on another replica the first log is %q, want %q", got, "debug "+nonce)
	}
	checkOther(t, rc.rr, "logging/setLevel", "tools/call")
	checkSpread(t, c, rc.rr)
}

// Closing the session (DELETE, on one replica) ends it everywhere: the GET
// stream on the other replica is ended by the server, and every replica
// answers the session id with 404.
func testReplicaDelete(t *testing.T, c *cluster) {
	rc := dialReplicas(t, c, false)
	getReplica := waitGET(t, rc.rr)
	get := rc.rr.openGets()[0]
	id := rc.cs.ID()
	version := rc.cs.InitializeResult().ProtocolVersion
	// The DELETE must go to another replica than the GET stream's.
	for rc.rr.nextReplica() == getReplica {
		if err := rc.cs.Ping(t.Context(), nil); err != nil {
			t.Fatalf("Ping: %v", err)
		}
	}
	// Hold the DELETE's answer until the GET stream ends, since the SDK
	// cancels its GET stream once DELETE is answered: only the server can
	// end it before that.
	deleted := -1
	rc.rr.afterDelete = func(replica int) {
		deleted = replica
		select {
		case <-get.ended:
		case <-time.After(eventTimeout):
		}
	}
	if err := rc.cs.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	switch {
	case deleted < 0:
		t.Fatalf("Close sent no DELETE:\n%s", trailString(rc.rr.trailCopy()))
	case deleted == getReplica:
		t.Fatalf("the DELETE went to replica %d, which holds the GET stream: the test proves nothing of the relay", deleted)
	}
	if h, _ := lastHopMethod(rc.rr.trailCopy(), http.MethodDelete); h.status != http.StatusNoContent {
		t.Errorf("DELETE on replica %d: status %d, want %d", h.replica, h.status, http.StatusNoContent)
	}
	select {
	case <-get.ended:
		if !get.byServer {
			t.Errorf("the GET stream on replica %d ended with an error, want the server to end it", getReplica)
		}
	default:
		t.Errorf("the GET stream on replica %d is still open %v after DELETE on replica %d", getReplica, eventTimeout, deleted)
	}
	for i, u := range c.urls {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			if status := rawSessionRequest(t, method, u, id, version); status != http.StatusNotFound {
				t.Errorf("%s to replica %d with the deleted session id: status %d, want %d", method, i, status, http.StatusNotFound)
			}
		}
	}
}

// lastHopMethod returns the last hop with the given HTTP method.
func lastHopMethod(hops []hop, method string) (hop, bool) {
	for i := len(hops) - 1; i >= 0; i-- {
		if hops[i].method == method {
			return hops[i], true
		}
	}
	return hop{}, false
}

// rawSessionRequest sends a POST (tools/list) or GET with session id to
// url and returns the status.
func rawSessionRequest(t *testing.T, method, url, id, version string) int {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"tools/list","params":{}}`)
	}
	ctx, cancel := context.WithTimeout(t.Context(), caseTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode
}
