package ferry_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"

	"sync"
)

// replicas are servers, each behind its own handler and URL, sharing one
// session store, as replicas behind a load balancer share a networked one.
type replicas struct {
	srv      []*ferry.Server
	h        []*ferry.HTTPHandler
	url      []string
	store    ferry.SessionStore
	asked    chan string // what the "ask" tool's Elicit returned, or its error
	canceled chan string // the "wait" tool's context error
}

// newReplicas starts n stateful replicas sharing a memory store (see
// [startReplicas]).
func newReplicas(t *testing.T, n int) *replicas {
	t.Helper()
	return startReplicas(t, n, &ferry.MemorySessionStore{}, true)
}

// startReplicas starts n replicas sharing store, with stateful legacy
// sessions or not. Each serves an "ask" tool that elicits, a "wait" tool
// that waits for its cancellation, and the resources doc://readme and
// doc://0 to doc://9; the X-User header names the caller (see [asUser]).
func startReplicas(t *testing.T, n int, store ferry.SessionStore, stateful bool) *replicas {
	t.Helper()
	rs := &replicas{store: store, asked: make(chan string, 4), canceled: make(chan string, 4)}
	read := func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "hello"}}, nil
	}
	for range n {
		srv := ferry.NewServer("replica", "1", &ferry.ServerOptions{Logger: discard})
		srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks the user."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Name?", RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				rs.asked <- "error: " + err.Error()
				return nil, err
			}
			rs.asked <- res.Action + " " + res.Content["name"].(string)
			return ferry.NewResult(ferry.Text("hello " + res.Content["name"].(string))), nil
		})
		srv.AddTool(ferry.Tool{Name: "wait", Description: "Waits until cancelled."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			select {
			case <-ctx.Done():
				rs.canceled <- ctx.Err().Error()
				return nil, ctx.Err()
			case <-time.After(20 * time.Second):
				rs.canceled <- "not cancelled"
				return ferry.NewResult(ferry.Text("done")), nil
			}
		})
		srv.AddResource(ferry.Resource{URI: "doc://readme", Name: "readme"}, read)
		for i := range 10 {
			srv.AddResource(ferry.Resource{URI: fmt.Sprintf("doc://%d", i), Name: fmt.Sprint("doc", i)}, read)
		}
		h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: stateful, SessionStore: store})
		ts := httptest.NewServer(asUser(h))
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = h.Shutdown(ctx)
			ts.Close()
		})
		rs.srv, rs.h, rs.url = append(rs.srv, srv), append(rs.h, h), append(rs.url, ts.URL)
	}
	return rs
}

// cancelUntil posts the notifications/cancelled body cancel to url, as
// user in session, until the "wait" tool's call has been cancelled (a
// cancellation of a request not yet running anywhere is dropped, as on
// one replica), and fails unless its context ended with context.Canceled
// within 10s.
func (rs *replicas) cancelUntil(t *testing.T, url, user, session, cancel string) {
	t.Helper()
	for range 200 {
		post(t, url, user, session, cancel)
		select {
		case got := <-rs.canceled:
			if got != context.Canceled.Error() {
				t.Fatalf("the tool's context ended with %q", got)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatal("the cancellation never reached the call within 10s")
}

// A tool on replica A asks the client a question; the client's answer is
// posted to replica B, which relays it, and the tool gets it.
func TestRelayTakesAnAnswerToAnotherReplica(t *testing.T) {
	rs := newReplicas(t, 2)
	id := initLegacy(t, rs.url[0], `{"elicitation":{}}`)
	call := openStream(t, "POST", rs.url[0], id, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	q := decode(t, call.next())
	if q["method"] != "elicitation/create" {
		t.Fatalf("first event: %v", q)
	}
	answer := string(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": q["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}))
	if status, _, body := post(t, rs.url[1], "", id, answer); status != 202 {
		t.Fatalf("the answer posted to replica B: %d %s", status, body)
	}
	if got := <-rs.asked; got != "accept Ada" {
		t.Fatalf("the tool got %q", got)
	}
	if res := call.next(); !strings.Contains(res, "hello Ada") {
		t.Errorf("the call's result: %s", res)
	}
}

// notifications/cancelled posted to replica B cancels the request
// running on replica A.
func TestRelayCancelsARequestOnAnotherReplica(t *testing.T) {
	rs := newReplicas(t, 2)
	id := initLegacy(t, rs.url[0], `{}`)
	openStream(t, "POST", rs.url[0], id, `{"jsonrpc":"2.0","id":"w1","method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	rs.cancelUntil(t, rs.url[1], "", id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w1","reason":"user"}}`)
}

// A GET stream on replica A hears of a subscription made on B and of the
// updates and list changes made on either replica; a DELETE on B ends it.
func TestRelayReachesAGETStreamOnAnotherReplica(t *testing.T) {
	rs := newReplicas(t, 2)
	id := initLegacy(t, rs.url[0], `{}`)
	get := openStream(t, "GET", rs.url[0], id, "")
	waitStreamOpen(t, rs.srv[0], get)

	if status, _, body := post(t, rs.url[1], "", id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"doc://readme"}}`); status != 200 {
		t.Fatalf("subscribe on B: %d %s", status, body)
	}
	// The subscription reaches A by the relay; B's update reaches A's
	// stream by the relay too.
	waitForEvent(t, get, func() { rs.srv[1].NotifyResourceUpdated("doc://readme") }, "notifications/resources/updated")
	rs.srv[0].NotifyResourceUpdated("doc://readme")
	if ev := get.next(); !strings.Contains(ev, `"uri":"doc://readme"`) {
		t.Fatalf("A's own update: %s", ev)
	}
	// A list change on B reaches the stream on A.
	rs.srv[1].AddTool(ferry.Tool{Name: "late", Description: "Added late."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if ev := get.next(); !strings.Contains(ev, "notifications/tools/list_changed") {
		t.Fatalf("B's list change: %s", ev)
	}
	// Unsubscribed on B: A's stream no longer hears of the resource.
	post(t, rs.url[1], "", id, `{"jsonrpc":"2.0","id":3,"method":"resources/unsubscribe","params":{"uri":"doc://readme"}}`)
	rs.srv[1].NotifyResourceUpdated("doc://readme")
	rs.srv[1].AddTool(ferry.Tool{Name: "later", Description: "Added later."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if ev := get.next(); !strings.Contains(ev, "notifications/tools/list_changed") {
		t.Fatalf("after unsubscribing on B, the stream got %s", ev)
	}
	// DELETE on B ends the stream on A.
	req, _ := http.NewRequest("DELETE", rs.url[1], nil)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("DELETE on B: %d", resp.StatusCode)
	}
	get.ended()
}

// waitForEvent calls act until the stream gets an event containing want; it
// fails after 10s.
func waitForEvent(t *testing.T, st *sseStream, act func(), want string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		act()
		select {
		case ev, ok := <-st.events:
			if !ok {
				t.Fatal("the stream ended")
			}
			if strings.Contains(ev, want) {
				return
			}
			t.Fatalf("the stream got %s, want %s", ev, want)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no %s within 10s", want)
}

// A list change of a tool some callers may not see reaches, on the other
// replica, only the streams of callers who see it there.
func TestRelayedListChangeOfAHiddenToolReachesOnlyThoseWhoSeeIt(t *testing.T) {
	rs := newReplicas(t, 2)
	outsider := initLegacyAs(t, rs.url[0], "eve", "")
	insider := initLegacyAs(t, rs.url[0], "hana", "hr")
	getOut := openStream(t, "GET", rs.url[0], outsider, "", "X-User", "eve")
	getIn := openStream(t, "GET", rs.url[0], insider, "", "X-User", "hana", "X-Scopes", "hr")
	waitStreamOpen(t, rs.srv[0], getOut)
	waitStreamOpen(t, rs.srv[0], getIn)
	drainEvents(getOut) // the list changes that opened getIn
	hidden := ferry.Tool{Name: "hr_report", Description: "Payroll.", Scopes: []string{"hr"}}
	noop := func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil }
	// Both replicas serve the tool, as replicas do; B's change is relayed.
	rs.srv[0].AddTool(hidden, noop)
	if ev := getIn.next(); !strings.Contains(ev, "tools/list_changed") {
		t.Fatalf("insider: %s", ev)
	}
	rs.srv[1].AddTool(hidden, noop)
	if ev := getIn.next(); !strings.Contains(ev, "tools/list_changed") {
		t.Fatalf("insider, B's change: %s", ev)
	}
	select {
	case ev := <-getOut.events:
		t.Fatalf("the outsider's stream heard of a tool it does not see: %s", ev)
	case <-time.After(300 * time.Millisecond):
	}
}

// initLegacyAs opens a session as user, with the given scopes.
func initLegacyAs(t *testing.T, url, user, scopes string) string {
	t.Helper()
	status, id, body := post(t, url, user, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, "X-Scopes", scopes)
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d %s", status, body)
	}
	return id
}

// A message on the relay that is not one of the handler's is ignored: the
// handler keeps serving, and a forged reply for an unknown call reaches
// nothing.
func TestRelayIgnoresForeignMessages(t *testing.T) {
	rs := newReplicas(t, 1)
	id := initLegacy(t, rs.url[0], `{"elicitation":{}}`)
	call := openStream(t, "POST", rs.url[0], id, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	q := decode(t, call.next())
	for _, msg := range []string{
		``, `not json`, `{"kind":"reply"}`, `{"from":"x","kind":"reply","session":"` + id + `","reply":"bad"}`,
		`{"from":"x","kind":"reply","session":"` + id + `","reply":{"jsonrpc":"2.0","id":"ferry-guess","result":{}}}`,
		`{"from":"x","kind":"change","method":"notifications/evil"}`,
		`{"from":"x","kind":"end","session":"other"}`,
		`{"from":"x","kind":"subscribe","session":"` + id + `","uri":"doc://readme","on":true}`,
	} {
		if err := rs.store.(ferry.SessionRelay).Publish(t.Context(), []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	answer := string(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": q["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"name": "Bo"}}}))
	post(t, rs.url[0], "", id, answer)
	if got := <-rs.asked; got != "accept Bo" {
		t.Fatalf("the tool got %q", got)
	}
}

// Shutdown unsubscribes the handler from its store's relay and leaves no
// goroutine of the relay behind.
func TestRelayEndsWithShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	store := &ferry.MemorySessionStore{}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	for i := range 100 {
		srv.NotifyResourceUpdated("doc://" + string(rune('a'+i%26)))
	}
	if err := h.Shutdown(t.Context()); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	srv.NotifyResourceUpdated("doc://after")
	noGoroutinesLeft(t, before)
}

// A 2025-03-26 batch's tool call on replica A gets the answer to its
// question posted to replica B.
func TestRelayTakesAnAnswerToABatchOnAnotherReplica(t *testing.T) {
	rs := newReplicas(t, 2)
	id := initLegacy(t, rs.url[0], `{"elicitation":{}}`)
	call := openStream(t, "POST", rs.url[0], id, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}},{"jsonrpc":"2.0","id":2,"method":"ping"}]`)
	q := decode(t, call.next())
	if q["method"] != "elicitation/create" {
		t.Fatalf("first event: %v", q)
	}
	answer := string(mustJSON(t, map[string]any{"jsonrpc": "2.0", "id": q["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"name": "Cy"}}}))
	if status, _, body := post(t, rs.url[1], "", id, answer); status != 202 {
		t.Fatalf("the answer posted to replica B: %d %s", status, body)
	}
	if res := call.next(); !strings.HasPrefix(res, "[") || !strings.Contains(res, "hello Cy") {
		t.Errorf("the batch's answer: %s", res)
	}
}

// A request with a long id is still cancelled on the replica it runs on:
// the bound on the ids relayed holds for relaying only.
func TestCancelReachesARequestWithALongID(t *testing.T) {
	rs := newReplicas(t, 1)
	id := initLegacy(t, rs.url[0], `{}`)
	reqID := `"` + strings.Repeat("w", 300) + `"`
	openStream(t, "POST", rs.url[0], id, `{"jsonrpc":"2.0","id":`+reqID+`,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	rs.cancelUntil(t, rs.url[0], "", id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+reqID+`}}`)
}

// Stateless replicas sharing a relaying store relay their changes: a
// 2026-07-28 subscriptions/listen on replica A hears of an update and a
// list change made on replica B.
func TestRelayReachesAListenOnAStatelessReplica(t *testing.T) {
	rs := startReplicas(t, 2, &ferry.MemorySessionStore{}, false)
	srvs, urls := rs.srv, rs.url
	listen := openStream(t, "POST", urls[0], "",
		`{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["doc://readme"]},`+modernMetaJSON+`}}`,
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
	if ack := listen.next(); !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("the listen's first event: %s", ack)
	}
	srvs[1].NotifyResourceUpdated("doc://readme")
	if ev := listen.next(); !strings.Contains(ev, "notifications/resources/updated") {
		t.Fatalf("B's update: %s", ev)
	}
	srvs[1].AddTool(ferry.Tool{Name: "late", Description: "Added late."}, func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) { return nil, nil })
	if ev := listen.next(); !strings.Contains(ev, "notifications/tools/list_changed") {
		t.Fatalf("B's list change: %s", ev)
	}
}

// Two requests with one id running on two replicas (which the spec
// forbids, and no replica can see): a cancellation posted to one of them
// cancels the request running there, and one posted to a third replica
// reaches both, as docs/replicas.md says.
func TestRelayCancelOfAnIDRunningOnTwoReplicas(t *testing.T) {
	rs := newReplicas(t, 3)
	id := initLegacy(t, rs.url[0], `{}`)
	call := `{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"wait","arguments":{}}}`
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"dup"}}`
	a := openStream(t, "POST", rs.url[0], id, call)
	waitCanceled := func(url string) {
		t.Helper()
		for i := 0; i < 200; i++ {
			post(t, url, "", id, cancel)
			select {
			case <-rs.canceled:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		t.Fatal("no call was cancelled within 10s")
	}
	waitCanceled(rs.url[0]) // A's call runs
	a.next()
	a = openStream(t, "POST", rs.url[0], id, call)
	b := openStream(t, "POST", rs.url[1], id, call)
	waitCanceled(rs.url[0]) // A's runs again: cancelled there, B's not
	select {
	case got := <-rs.canceled:
		t.Fatalf("the cancellation posted to A reached B's call too: %s", got)
	case <-time.After(300 * time.Millisecond):
	}
	post(t, rs.url[2], "", id, cancel) // from a third replica: reaches B's
	select {
	case <-rs.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation posted to C never reached B's call")
	}
	_, _ = a, b
}

// ackReplica is one stateful handler on a shared relaying store, serving
// the resources doc://0 … doc://9.
func ackReplica(t *testing.T, store ferry.SessionStore) (*ferry.Server, string) {
	t.Helper()
	rs := startReplicas(t, 1, store, true)
	return rs.srv[0], rs.url[0]
}

// subscribeTook subscribes session id to uri on url and returns how long
// the answer took.
func subscribeTook(t *testing.T, url, id, uri string) time.Duration {
	start := time.Now()
	status, _, body := post(t, url, "", id, `{"jsonrpc":"2.0","id":"s-`+uri+`","method":"resources/subscribe","params":{"uri":"`+uri+`"}}`)
	if status != 200 || !strings.Contains(body, `"result":{}`) {
		t.Errorf("subscribe %s: %d %s", uri, status, body)
	}
	return time.Since(start)
}

// Subscriptions a client takes at once, while the replica named as its
// stream's holder is gone, each wait for the confirmation at the same
// time, not one after the other: five cost one timeout, not five.
func TestSubscriptionsWaitingForAGoneHolderDoNotQueue(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	_, url := ackReplica(t, store)
	id := initLegacy(t, url, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() { subscribeTook(t, url, id, fmt.Sprintf("doc://%d", i)) })
	}
	wg.Wait()
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Errorf("five subscriptions at once took %v: they waited for the gone holder one after the other", took)
	}
}

// A GET stream opened on a replica while a subscription there waits for
// a gone holder's confirmation opens at once: the wait holds up nothing
// else of the session.
func TestGETStreamOpensWhileASubscriptionWaits(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srv, url := ackReplica(t, store)
	id := initLegacy(t, url, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	done := make(chan time.Duration, 1)
	go func() { done <- subscribeTook(t, url, id, "doc://0") }()
	time.Sleep(100 * time.Millisecond) // the subscription waits
	start := time.Now()
	get := openStream(t, "GET", url, id, "")
	waitStreamOpen(t, srv, get)
	if took := time.Since(start); took > 700*time.Millisecond {
		t.Errorf("the GET stream took %v to open: it waited for the subscription's confirmation", took)
	}
	<-done
}

// A replica named as the stream's holder that no longer holds the stream
// (its release failed: the store was down as the stream ended) answers
// at once that there is nothing to wait for: a subscription elsewhere is
// not held up by a replica that is alive.
func TestNamedHolderWithoutTheStreamConfirmsAtOnce(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srvA, urlA := ackReplica(t, store)
	_, urlB := ackReplica(t, store)
	id := initLegacy(t, urlA, `{}`)
	var holder string
	t.Run("stream", func(t *testing.T) { // its end closes the stream
		get := openStream(t, "GET", urlA, id, "")
		waitStreamOpen(t, srvA, get)
		st, err := store.Load(t.Context(), id)
		if err != nil || st.Stream == "" {
			t.Fatalf("the open stream was not recorded: %+v, %v", st, err)
		}
		holder = st.Stream
	})
	// The stream's end releases it; put the claim back, as a release the
	// store failed leaves it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := store.Load(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if st.Stream == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the ended stream was not released")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = holder; return nil }); err != nil {
		t.Fatal(err)
	}
	if took := subscribeTook(t, urlB, id, "doc://1"); took > 500*time.Millisecond {
		t.Errorf("the subscription on B took %v: A, alive and without the stream, did not confirm", took)
	}
}

// After one subscription found the named holder gone (it did not
// confirm in time), the next ones do not wait for it again.
func TestGoneHolderCostsOneTimeout(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	_, url := ackReplica(t, store)
	id := initLegacy(t, url, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	subscribeTook(t, url, id, "doc://0")
	for i := 1; i < 4; i++ {
		if took := subscribeTook(t, url, id, fmt.Sprintf("doc://%d", i)); took > 500*time.Millisecond {
			t.Errorf("subscription %d took %v: it waited for the gone holder again", i, took)
		}
	}
}

// slowRelay is a memory store whose relay delivers each message a while
// after it was published, on a goroutine of its own, as a networked relay
// does: the publisher's call returns before anyone has the message.
type slowRelay struct {
	*ferry.MemorySessionStore
	delay time.Duration

	mu   sync.Mutex
	subs map[int]func([]byte)
	next int
	wg   sync.WaitGroup
}

func (s *slowRelay) Publish(_ context.Context, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, deliver := range s.subs {
		s.wg.Go(func() {
			time.Sleep(s.delay)
			s.mu.Lock() // one delivery at a time, as the contract says
			defer s.mu.Unlock()
			deliver(msg)
		})
	}
	return nil
}

func (s *slowRelay) Subscribe(deliver func([]byte)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs == nil {
		s.subs = map[int]func([]byte){}
	}
	n := s.next
	s.next++
	s.subs[n] = deliver
	return func() {
		s.mu.Lock()
		delete(s.subs, n)
		s.mu.Unlock()
	}
}

// With a relay that takes its time, a subscription taken on replica B is
// answered only once replica A, which holds the session's GET stream, has
// it: an update A makes as soon as the client has the answer reaches the
// stream. Without the wait, the update would go by before the
// subscription arrived.
func TestSubscriptionElsewhereIsAnsweredOnceTheStreamHasIt(t *testing.T) {
	store := &slowRelay{MemorySessionStore: &ferry.MemorySessionStore{}, delay: 50 * time.Millisecond}
	t.Cleanup(store.wg.Wait) // after the replicas' cleanups: cleanups run last first
	rs := startReplicas(t, 2, store, true)
	srvs, urls := rs.srv, rs.url
	id := initLegacy(t, urls[0], `{}`)
	get := openStream(t, "GET", urls[0], id, "")
	waitStreamOpen(t, srvs[0], get)
	drainEvents(get)
	start := time.Now()
	if status, _, body := post(t, urls[1], "", id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"doc://readme"}}`); status != 200 {
		t.Fatalf("subscribe on B: %d %s", status, body)
	}
	if took := time.Since(start); took < store.delay {
		t.Errorf("the subscription was answered after %v, before the relay could have brought it to the stream's replica", took)
	}
	srvs[0].NotifyResourceUpdated("doc://readme") // at once, on the stream's replica
	if ev := get.next(); !strings.Contains(ev, "notifications/resources/updated") {
		t.Fatalf("the stream got %s", ev)
	}
}

// A stream holder that is gone (its process died with the stream open)
// delays a subscription taken elsewhere by the confirmation's timeout, no
// more: the subscription is stored and answered.
func TestSubscriptionWithAGoneStreamHolderIsAnswered(t *testing.T) {
	store := &ferry.MemorySessionStore{}
	srv := ferry.NewServer("replica", "1", &ferry.ServerOptions{Logger: discard})
	srv.AddResource(ferry.Resource{URI: "doc://readme", Name: "readme"}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "hello"}}, nil
	})
	h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: store})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Shutdown(context.Background()); ts.Close() })
	id := initLegacy(t, ts.URL, `{}`)
	if err := store.Update(t.Context(), id, func(st *ferry.SessionState) error { st.Stream = "a-handler-long-gone"; return nil }); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		_, _, body := post(t, ts.URL, "", id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"doc://readme"}}`)
		done <- body
	}()
	select {
	case body := <-done:
		if !strings.Contains(body, `"result":{}`) {
			t.Fatalf("subscribe: %s", body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a subscription waited for a gone stream holder for 10s")
	}
	st, err := store.Load(t.Context(), id)
	if err != nil || len(st.Subscriptions) != 1 {
		t.Fatalf("stored: %+v, %v", st, err)
	}
}
