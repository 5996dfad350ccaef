package interop

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ferry-mcp/ferry/client"
)

var loadDuration = flag.Duration("load-duration", 3*time.Second,
	"how long TestReplicasUnderLoad's clients run (CI runs 60s with -race)")

const (
	// loadClients is how many clients TestReplicasUnderLoad runs at once,
	// half legacy (the Go SDK's), half modern (Ferry's own).
	loadClients = 200
	// loadRequestTimeout bounds one request of the load test: a guard,
	// not a target.
	loadRequestTimeout = 30 * time.Second
	// legacyRedial is how many operations a legacy client makes before
	// it closes its session (DELETE) and opens another.
	legacyRedial = 40
	// maxLoadErrors is how many errors the load test keeps to show.
	maxLoadErrors = 10
)

// 200 clients, of both eras, run against two replicas sharing the Redis
// store, each request sent to the next replica in turn: the legacy clients
// (the official Go SDK, stateful sessions) call a tool that elicits, list
// tools, subscribe and unsubscribe, and end their sessions now and then;
// the modern ones (Ferry's client, 2026-07-28) call a tool that elicits by
// input_required, call another and list tools. No request fails, every
// answer is the answer to its own request (it echoes the request's nonce),
// and once the clients are closed and both handlers shut down no goroutine
// is left.
func TestReplicasUnderLoad(t *testing.T) {
	before := runtime.NumGoroutine()
	c := newCluster(t, 2, redisShared, &clusterOptions{principals: true})
	tr := newPooledTransport(t)
	var (
		wg  sync.WaitGroup
		run loadRun
	)
	start := time.Now()
	run.until = start.Add(*loadDuration)
	rrs := make([]*roundRobin, loadClients)
	for i := range loadClients {
		rrs[i] = c.newRoundRobin(tr, false)
		if i%2 == 0 {
			wg.Go(func() { run.legacyClient(t.Context(), c, rrs[i], i) })
		} else {
			wg.Go(func() { run.modernClient(t.Context(), c, rrs[i], i) })
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := c.shutdown(); err != nil {
		t.Errorf("shutting the replicas down: %v", err)
	}
	tr.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()

	n, failed := run.requests.Load(), run.failed.Load()
	t.Logf("%d clients (%d legacy, %d modern), 2 replicas sharing Redis, %v: %d requests, %.0f requests/s, latency p50 %v, p99 %v (within 5%%), max %v",
		loadClients, (loadClients+1)/2, loadClients/2, elapsed.Round(time.Millisecond), n, float64(n)/elapsed.Seconds(),
		run.lat.quantile(0.50), run.lat.quantile(0.99), run.lat.maxSeen())
	if retry := run.retry.Load(); failed != 0 || n == 0 || retry*1000 > n {
		t.Errorf("%d of %d requests failed, %d asked to try again later (at most 0.1%% may):\n%s", failed, n, retry, strings.Join(run.errorList(), "\n"))
	} else if retry != 0 {
		t.Logf("%d of %d requests were asked to try again later:\n%s", retry, n, strings.Join(run.errorList(), "\n"))
	}
	var sent, served [2]int
	for _, rr := range rrs {
		for i, k := range rr.sentCopy() {
			sent[i] += k
		}
		for i, k := range c.servedFor(rr.tag) {
			served[i] += k
		}
	}
	if sent != served || sent[0] == 0 || sent[1] == 0 {
		t.Errorf("HTTP requests per replica: sent %v, served %v; want both replicas to serve what was sent to them", sent, served)
	}
	noGoroutinesLeftAfter(t, before, 20*time.Second)
}

// loadRun is what the load test's clients share: the end of the run, and
// what they measured.
type loadRun struct {
	until    time.Time
	requests atomic.Int64
	failed   atomic.Int64
	retry    atomic.Int64 // refusals that say to try again later
	lat      latencies

	mu     sync.Mutex     // guards errors
	errors map[string]int // the failures, by message, at most maxLoadErrors of them
}

// measure runs one request and records its latency, or its failure.
func (r *loadRun) measure(ctx context.Context, era string, op func(ctx context.Context) error) {
	ctx, cancel := context.WithTimeout(ctx, loadRequestTimeout)
	defer cancel()
	start := time.Now()
	err := op(ctx)
	r.lat.add(time.Since(start))
	r.requests.Add(1)
	if err != nil {
		r.fail(era, err)
	}
}

// fail counts a failure of a client of era ("legacy" or "modern").
func (r *loadRun) fail(era string, err error) {
	msg := era + ": " + err.Error()
	// A refusal that says to try again later (the session store did not
	// answer within its timeout) is the documented answer of an
	// overloaded runner, not a wrong one; it is counted apart and bounded.
	if strings.Contains(err.Error(), "unavailable: try again later") {
		r.retry.Add(1)
	} else {
		r.failed.Add(1)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.errors == nil {
		r.errors = map[string]int{}
	}
	switch _, ok := r.errors[msg]; {
	case ok || len(r.errors) < maxLoadErrors:
		r.errors[msg]++
	default:
		r.errors["(other errors)"]++
	}
}

// errorList returns the failures, each with how many times it happened.
func (r *loadRun) errorList() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for msg, n := range r.errors {
		out = append(out, fmt.Sprintf("%6d x %s", n, msg))
	}
	slices.Sort(out)
	return out
}

// legacyClient runs a Go SDK client in legacy stateful sessions until the
// run ends.
func (r *loadRun) legacyClient(ctx context.Context, c *cluster, rr *roundRobin, id int) {
	sdk := mcp.NewClient(&mcp.Implementation{Name: "ferry-xrep-load", Version: "v0.0.0"}, &mcp.ClientOptions{
		Logger: slog.New(slog.DiscardHandler),
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "echo " + req.Params.Message}}, nil
		},
	})
	transport := &mcp.StreamableClientTransport{Endpoint: c.urls[0], HTTPClient: &http.Client{Transport: rr}, MaxRetries: -1}
	for k := 0; time.Now().Before(r.until); k++ {
		dctx, cancel := context.WithTimeout(ctx, loadRequestTimeout)
		cs, err := sdk.Connect(dctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: v20251125})
		cancel()
		if err != nil {
			r.fail("legacy", fmt.Errorf("connect: %w", err))
			return
		}
		for op := 0; op < legacyRedial && time.Now().Before(r.until); op++ {
			r.measure(ctx, "legacy", func(ctx context.Context) error { return legacyOp(ctx, cs, id, op) })
		}
		if err := cs.Close(); err != nil {
			r.fail("legacy", fmt.Errorf("close: %w", err))
		}
	}
}

// legacyOp is a legacy client's op-th operation.
func legacyOp(ctx context.Context, cs *mcp.ClientSession, id, op int) error {
	uri := fmt.Sprintf("doc://item/load-%d", id)
	switch op % 4 {
	case 0, 2:
		nonce := randomHex(8)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"nonce": nonce}})
		if err != nil {
			return fmt.Errorf("ask: %w", err)
		}
		return checkNonce(res.IsError, texts(res.Content), res.StructuredContent, nonce, "accept echo nonce "+nonce)
	case 1:
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if !slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "ask" }) {
			return errors.New("tools/list: no ask tool")
		}
		return nil
	default:
		if op%8 == 3 {
			return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
		}
		return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	}
}

// modernClient runs a Ferry client in the 2026-07-28 era until the run
// ends.
func (r *loadRun) modernClient(ctx context.Context, c *cluster, rr *roundRobin, id int) {
	dctx, cancel := context.WithTimeout(ctx, loadRequestTimeout)
	defer cancel()
	fc, err := client.DialHTTP(dctx, c.urls[0], &client.Options{
		HTTPClient: &http.Client{Transport: rr},
		Elicit: func(_ context.Context, req *client.ElicitParams) (*client.ElicitResult, error) {
			return &client.ElicitResult{Action: "accept", Content: map[string]any{"name": "echo " + req.Message}}, nil
		},
	})
	if err != nil {
		r.fail("modern", fmt.Errorf("dial: %w", err))
		return
	}
	defer fc.Close()
	if !fc.Modern() {
		r.fail("modern", fmt.Errorf("negotiated %s, want %s", fc.Protocol(), modernVersion))
		return
	}
	for op := 0; time.Now().Before(r.until); op++ {
		r.measure(ctx, "modern", func(ctx context.Context) error { return modernOp(ctx, fc, op) })
	}
}

// modernOp is a modern client's op-th operation.
func modernOp(ctx context.Context, fc *client.Client, op int) error {
	nonce := randomHex(8)
	switch op % 3 {
	case 0:
		res, err := fc.CallTool(ctx, "ask", map[string]string{"nonce": nonce})
		if err != nil {
			return fmt.Errorf("ask: %w", err)
		}
		return checkNonce(res.IsError, []string{res.Text()}, res.StructuredContent, nonce, "accept echo nonce "+nonce)
	case 1:
		res, err := fc.CallTool(ctx, "echo", map[string]string{"nonce": nonce})
		if err != nil {
			return fmt.Errorf("echo: %w", err)
		}
		return checkNonce(res.IsError, []string{res.Text()}, res.StructuredContent, nonce, "")
	default:
		tools, err := fc.ListTools(ctx)
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		if !slices.ContainsFunc(tools, func(t client.Tool) bool { return t.Name == "ask" }) {
			return errors.New("tools/list: no ask tool")
		}
		return nil
	}
}

// checkNonce checks a tool's answer: not an error, its structured content
// carrying nonce and, if answer is not empty, that answer.
func checkNonce(isError bool, text []string, structured any, nonce, answer string) error {
	if isError {
		return fmt.Errorf("the tool failed: %q", text)
	}
	var out nonceOut
	switch s := structured.(type) {
	case json.RawMessage:
		if err := json.Unmarshal(s, &out); err != nil {
			return fmt.Errorf("structured content %s: %w", s, err)
		}
	default:
		b, _ := json.Marshal(s)
		if err := json.Unmarshal(b, &out); err != nil {
			return fmt.Errorf("structured content %s: %w", b, err)
		}
	}
	if out.Nonce != nonce || out.Answer != answer {
		return fmt.Errorf("the answer %+v is not the answer to the request with nonce %s (want answer %q)", out, nonce, answer)
	}
	return nil
}

// latencies is a histogram of latencies with buckets 5% wide, from
// minLatency up: bounded however long the run, and accurate to 5%.
type latencies struct {
	mu     sync.Mutex // guards counts, n and max
	counts [latencyBuckets]int64
	n      int64
	max    time.Duration
}

const (
	minLatency     = 10 * time.Microsecond
	latencyGrowth  = 1.05
	latencyBuckets = 400 // up to 10µs * 1.05^400, over 3 days
)

func (l *latencies) add(d time.Duration) {
	b := 0
	if d > minLatency {
		b = min(int(math.Log(float64(d)/float64(minLatency))/math.Log(latencyGrowth))+1, latencyBuckets-1)
	}
	l.mu.Lock()
	l.counts[b]++
	l.n++
	l.max = max(l.max, d)
	l.mu.Unlock()
}

// quantile returns the upper bound of the bucket holding the q-quantile.
func (l *latencies) quantile(q float64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := int64(math.Ceil(q * float64(l.n)))
	var seen int64
	for b, k := range l.counts {
		if seen += k; seen >= want && k > 0 {
			return min(time.Duration(float64(minLatency)*math.Pow(latencyGrowth, float64(b))).Round(time.Microsecond), l.max)
		}
	}
	return l.max
}

func (l *latencies) maxSeen() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.max
}

// noGoroutinesLeftAfter waits up to settle for the goroutines to fall back
// to before, and fails t with their stacks if they do not.
func noGoroutinesLeftAfter(t *testing.T, before int, settle time.Duration) {
	t.Helper()
	deadline := time.Now().Add(settle)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 4<<20)
		t.Fatalf("%d goroutines left (before: %d):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
	}
}
