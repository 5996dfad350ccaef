package interop

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/redisstore"
)

// This file holds the fixture of the replica tests: several ferry servers,
// each behind its own stateful HTTPHandler and httptest.Server, sharing one
// session store, and an HTTP transport that sends each request to the next
// replica in turn, as a load balancer without sticky sessions does.

// redisURL is the Redis the replica tests share, with a prefix of their own.
const redisURL = "redis://127.0.0.1:6379"

// replicaShutdownTimeout bounds the Shutdown of one replica's handler.
const replicaShutdownTimeout = 10 * time.Second

// sharedStore is a kind of session store the replicas share, by its name
// in the subtests. open returns what each replica calls to get its store:
// the same one for the memory store, a client of its own on one Redis
// prefix for Redis, as separate processes would have.
type sharedStore struct {
	name string
	open func(t *testing.T) func() ferry.SessionStore
}

// sharedStores are the stores every replica test runs with: the memory
// store, which relays within the process, and Redis.
var (
	memoryShared = sharedStore{"memory", memoryStores}
	redisShared  = sharedStore{"redis", func(t *testing.T) func() ferry.SessionStore { return redisStores(t, nil) }}
	sharedStores = []sharedStore{memoryShared, redisShared}
)

// memoryStores returns one memory store for every replica.
func memoryStores(*testing.T) func() ferry.SessionStore {
	s := &ferry.MemorySessionStore{}
	return func() ferry.SessionStore { return s }
}

// redisStores returns a maker of Redis stores, each with a client of its
// own, sharing a prefix no other test uses, with opts otherwise (nil:
// the defaults). Without Redis the test is skipped, or fails when CI is
// set. The maker fails t if it cannot connect. Each store is closed when t
// ends, after the replicas made later.
func redisStores(t *testing.T, opts *redisstore.Options) func() ferry.SessionStore {
	t.Helper()
	var o redisstore.Options
	if opts != nil {
		o = *opts
	}
	o.Prefix = "ferry-xrep:" + strings.ReplaceAll(t.Name(), "/", ":") + ":" + randomHex(6) + ":"
	dial := func() (*redisstore.Store, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		s, err := redisstore.Dial(ctx, redisURL, &o)
		if err == nil {
			t.Cleanup(func() { s.Close() })
		}
		return s, err
	}
	first, err := dial()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Redis at %s does not answer (CI is set, so this fails rather than skips): %v", redisURL, err)
		}
		t.Skipf("Redis at %s does not answer, skipping: %v", redisURL, err)
	}
	return func() ferry.SessionStore {
		if first != nil {
			s := first
			first = nil
			return s
		}
		s, err := dial()
		if err != nil {
			t.Fatalf("another client of Redis at %s: %v", redisURL, err)
		}
		return s
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// clientTag is the request header by which a replica counts the requests
// of each round-robin transport, to check them against its own count.
const clientTag = "X-Ferry-Test-Client"

// cluster is n replicas sharing a session store.
type cluster struct {
	srv  []*ferry.Server
	h    []*ferry.HTTPHandler
	ts   []*httptest.Server
	urls []string

	servedMu sync.Mutex          // guards served and inflight
	served   map[string][]int    // requests each replica served, by clientTag
	inflight map[string]int      // requests being served, by clientTag
	waits    chan waitReport     // what the "wait" tool saw
	started  chan int            // the replica a "wait" call started on
	stopOnce sync.Once           // guards the shutdown of the replicas
	logs     []*ferrytest.Buffer // each replica's server log, warnings and errors
	closers  []io.Closer         // the replicas' stores that close (Redis's)
}

// waitReport is how a "wait" call ended, and where it ran.
type waitReport struct {
	replica int
	err     string
}

// clusterOptions customizes newCluster.
type clusterOptions struct {
	// principals makes each round-robin transport a caller of its own,
	// with its clientTag as its Subject, as an authenticator in front of
	// the replicas would; else every caller is the loopback address, and
	// shares its limits (Limits.MaxCallsPerCaller, CallRate).
	principals bool
}

// nonceIn is the input of the tools that echo a nonce.
type nonceIn struct {
	Nonce string `json:"nonce" doc:"Echoed in the answer, so that a client can tell the answer is its own."`
}

// nonceOut is their output.
type nonceOut struct {
	Nonce   string `json:"nonce"`
	Answer  string `json:"answer,omitempty"`
	Replica int    `json:"replica"`
}

// newCluster starts n replicas sharing a store of the given kind. Each serves the same tools:
// "echo" (returns its nonce), "ask" (elicits, with the nonce in the
// question), "sample" (asks the client's model), "wait" (runs until
// cancelled), "log" (logs at debug and info), and the resources
// doc://readme and doc://item/{n}. The replicas are shut down when t
// ends, if the test has not done it.
func newCluster(t *testing.T, n int, kind sharedStore, opts *clusterOptions) *cluster {
	t.Helper()
	c := &cluster{served: map[string][]int{}, inflight: map[string]int{},
		waits: make(chan waitReport, 16), started: make(chan int, 16)}
	keys := [][]byte{[]byte("ferry-xrep-signing-key-" + randomHex(8))} // replicas share their keys
	store := kind.open(t)
	for i := range n {
		log := new(ferrytest.Buffer)
		srv := ferry.NewServer("replica", "1", &ferry.ServerOptions{
			SigningKeys: keys,
			Logger:      slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelWarn})),
		})
		addReplicaTools(c, i, srv)
		st := store()
		if cl, ok := st.(io.Closer); ok {
			c.closers = append(c.closers, cl)
		}
		h := ferry.NewHTTPHandler(srv, &ferry.HTTPOptions{Stateful: true, SessionStore: st})
		ts := httptest.NewServer(c.counting(i, n, opts != nil && opts.principals, h))
		c.srv, c.h, c.ts, c.urls = append(c.srv, srv), append(c.h, h), append(c.ts, ts), append(c.urls, ts.URL)
		c.logs = append(c.logs, log)
	}
	t.Cleanup(func() {
		if err := c.shutdown(); err != nil {
			t.Errorf("shutting the replicas down: %v", err)
		}
		if t.Failed() {
			for i, l := range c.logs {
				if s := l.String(); s != "" {
					t.Logf("replica %d log:\n%s", i, s)
				}
			}
		}
	})
	return c
}

// addReplicaTools adds the tools and resources every replica serves.
func addReplicaTools(c *cluster, i int, srv *ferry.Server) {
	ferry.AddTool(srv, ferry.Tool{Name: "echo", Description: "Returns its nonce."},
		func(_ context.Context, in nonceIn) (nonceOut, error) {
			return nonceOut{Nonce: in.Nonce, Replica: i}, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "ask", Description: "Asks the user for a name, with the nonce in the question."},
		func(ctx context.Context, in nonceIn) (nonceOut, error) {
			res, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "nonce " + in.Nonce,
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
			if err != nil {
				return nonceOut{}, err
			}
			name, _ := res.Content["name"].(string)
			return nonceOut{Nonce: in.Nonce, Answer: res.Action + " " + name, Replica: i}, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "sample", Description: "Asks the client's model, with the nonce in the prompt."},
		func(ctx context.Context, in nonceIn) (nonceOut, error) {
			res, err := ferry.CreateMessage(ctx, &ferry.CreateMessageParams{MaxTokens: 16,
				Messages: []ferry.PromptMessage{ferry.UserMessage(ferry.Text("nonce " + in.Nonce))}})
			if err != nil {
				return nonceOut{}, err
			}
			text, _ := res.Content.(*ferry.TextContent)
			if text == nil {
				return nonceOut{}, fmt.Errorf("the model answered %T, want text", res.Content)
			}
			return nonceOut{Nonce: in.Nonce, Answer: res.Model + ": " + text.Text, Replica: i}, nil
		})
	ferry.AddTool(srv, ferry.Tool{Name: "wait", Description: "Runs until cancelled."},
		func(ctx context.Context, in nonceIn) (nonceOut, error) {
			c.started <- i
			// Something on the call's stream, so that its answer starts
			// and the client may send more while the call runs.
			_ = ferry.NotifyLog(ctx, ferry.LevelInfo, "replica", "waiting "+in.Nonce)
			select {
			case <-ctx.Done():
				c.waits <- waitReport{i, ctx.Err().Error()}
				return nonceOut{}, ctx.Err()
			case <-time.After(30 * time.Second):
				c.waits <- waitReport{i, "not cancelled within 30s"}
				return nonceOut{Nonce: in.Nonce, Replica: i}, nil
			}
		})
	ferry.AddTool(srv, ferry.Tool{Name: "log", Description: "Logs the nonce at debug, then at info."},
		func(ctx context.Context, in nonceIn) (nonceOut, error) {
			_ = ferry.NotifyLog(ctx, ferry.LevelDebug, "replica", "debug "+in.Nonce)
			_ = ferry.NotifyLog(ctx, ferry.LevelInfo, "replica", "info "+in.Nonce)
			return nonceOut{Nonce: in.Nonce, Replica: i}, nil
		})
	srv.AddResource(ferry.Resource{URI: "doc://readme", Name: "readme"}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "hello"}}, nil
	})
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "doc://item/{n}", Name: "item"}, func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "an item"}}, nil
	})
}

// counting counts the requests replica i serves, by their clientTag,
// and makes the tag their caller if principals is set.
func (c *cluster) counting(i, n int, principals bool, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tag := r.Header.Get(clientTag); tag != "" {
			if principals {
				r = r.WithContext(ferry.WithPrincipal(r.Context(), &ferry.Principal{Subject: tag}))
			}
			c.servedMu.Lock()
			if c.served[tag] == nil {
				c.served[tag] = make([]int, n)
			}
			c.served[tag][i]++
			c.inflight[tag]++
			c.servedMu.Unlock()
			defer func() {
				c.servedMu.Lock()
				c.inflight[tag]--
				c.servedMu.Unlock()
			}()
		}
		h.ServeHTTP(w, r)
	})
}

// inflightFor returns how many requests tagged tag the replicas are
// serving.
func (c *cluster) inflightFor(tag string) int {
	c.servedMu.Lock()
	defer c.servedMu.Unlock()
	return c.inflight[tag]
}

// servedFor returns the requests each replica served for the transport
// tagged tag.
func (c *cluster) servedFor(tag string) []int {
	c.servedMu.Lock()
	defer c.servedMu.Unlock()
	return append([]int(nil), c.served[tag]...)
}

// shutdown shuts every replica's handler down, then its httptest.Server,
// then closes the stores that close. Only the first call does it.
func (c *cluster) shutdown() error {
	var errs []error
	c.stopOnce.Do(func() {
		var wg sync.WaitGroup
		errc := make([]error, len(c.h))
		for i, h := range c.h {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), replicaShutdownTimeout)
				defer cancel()
				errc[i] = h.Shutdown(ctx)
			})
		}
		wg.Wait()
		for i, ts := range c.ts {
			ts.Close()
			if errc[i] != nil {
				errs = append(errs, fmt.Errorf("replica %d: %w", i, errc[i]))
			}
		}
		for _, cl := range c.closers {
			if err := cl.Close(); err != nil {
				errs = append(errs, fmt.Errorf("closing a store: %w", err))
			}
		}
	})
	return errors.Join(errs...)
}

// hop is one request a round-robin transport sent.
type hop struct {
	replica int
	method  string // the HTTP method
	rpc     string // the JSON-RPC method posted, or "response" for the client's answer
	status  int    // 0 if the round trip failed
}

func (h hop) String() string {
	return fmt.Sprintf("%s %s -> replica %d: %d", h.method, h.rpc, h.replica, h.status)
}

// roundRobin is an [http.RoundTripper] that sends each request to the
// next replica in turn, rewriting the URL's host, so that consecutive
// requests of one session land on different replicas. It counts the
// requests it sends to each replica and, if trail is set, keeps every hop
// and watches the GET streams. It is safe for concurrent use.
type roundRobin struct {
	targets []*url.URL
	next    http.RoundTripper
	tag     string // sent as clientTag
	trail   bool
	// detach keeps a POST's request to the replica open when the client
	// gives it up (until the client closes its body, or caseTimeout), as
	// a proxy that does not pass a client's disconnect on does: then only
	// notifications/cancelled cancels a call.
	detach bool

	// afterDelete, if set, runs once a DELETE is answered, before the
	// client sees the answer.
	afterDelete func(replica int)

	mu   sync.Mutex // guards n, sent, hops and gets
	n    int
	sent []int
	hops []hop
	gets []*getStream
}

// getStream is a GET stream a round-robin transport opened.
type getStream struct {
	replica  int
	ended    chan struct{} // closed when its body ends
	byServer bool          // the body ended with EOF: the server ended it; set before ended closes
}

// newRoundRobin returns a round-robin transport over the cluster's
// replicas, sending through next.
func (c *cluster) newRoundRobin(next http.RoundTripper, trail bool) *roundRobin {
	rr := &roundRobin{next: next, tag: randomHex(8), trail: trail, sent: make([]int, len(c.urls))}
	for _, u := range c.urls {
		target, err := url.Parse(u)
		if err != nil {
			panic(err) // httptest's URLs parse
		}
		rr.targets = append(rr.targets, target)
	}
	return rr
}

// RoundTrip implements [http.RoundTripper].
func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	var rpc string
	if rr.trail && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		rpc = rpcOf(body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	rr.mu.Lock()
	i := rr.n % len(rr.targets)
	rr.n++
	rr.sent[i]++
	k := len(rr.hops)
	if rr.trail {
		// In the trail before its answer, since what it carries (a
		// client's answer) may end another request before it is answered.
		rr.hops = append(rr.hops, hop{replica: i, method: req.Method, rpc: rpc})
	}
	rr.mu.Unlock()

	out := req.Clone(req.Context())
	out.Body = req.Body
	out.URL.Scheme, out.URL.Host, out.Host = rr.targets[i].Scheme, rr.targets[i].Host, ""
	out.Header.Set(clientTag, rr.tag)
	var release context.CancelFunc
	if rr.detach && req.Method == http.MethodPost {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), caseTimeout)
		out, release = out.WithContext(ctx), cancel
	}
	resp, err := rr.next.RoundTrip(out)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	if release != nil {
		resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	}
	if !rr.trail {
		return resp, nil
	}
	rr.mu.Lock()
	rr.hops[k].status = resp.StatusCode
	if req.Method == http.MethodGet && resp.StatusCode == http.StatusOK {
		gs := &getStream{replica: i, ended: make(chan struct{})}
		rr.gets = append(rr.gets, gs)
		resp.Body = &watchedBody{ReadCloser: resp.Body, gs: gs}
	}
	rr.mu.Unlock()
	if req.Method == http.MethodDelete && rr.afterDelete != nil {
		rr.afterDelete(i)
	}
	return resp, nil
}

// rpcOf names the JSON-RPC message body: its method, or "response".
func rpcOf(body []byte) string {
	var m struct {
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil {
		return "?"
	}
	if m.Method == "" && (m.Result != nil || m.Error != nil) {
		return "response"
	}
	return m.Method
}

// nextReplica returns the replica the next request goes to.
func (rr *roundRobin) nextReplica() int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.n % len(rr.targets)
}

// trailCopy returns the hops so far.
func (rr *roundRobin) trailCopy() []hop {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return append([]hop(nil), rr.hops...)
}

// sentCopy returns the requests sent to each replica.
func (rr *roundRobin) sentCopy() []int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return append([]int(nil), rr.sent...)
}

// openGets returns the GET streams whose bodies have not ended.
func (rr *roundRobin) openGets() []*getStream {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	var open []*getStream
	for _, g := range rr.gets {
		select {
		case <-g.ended:
		default:
			open = append(open, g)
		}
	}
	return open
}

// watchedBody notes how a GET stream's body ends.
type watchedBody struct {
	io.ReadCloser
	gs   *getStream
	once sync.Once
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.once.Do(func() {
			b.gs.byServer = errors.Is(err, io.EOF)
			close(b.gs.ended)
		})
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { close(b.gs.ended) })
	return err
}

// releasingBody releases a detached request when its body is closed.
type releasingBody struct {
	io.ReadCloser
	release context.CancelFunc
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// lastHop returns the last hop posting rpc, and whether there is one.
func lastHop(hops []hop, rpc string) (hop, bool) {
	for i := len(hops) - 1; i >= 0; i-- {
		if hops[i].rpc == rpc {
			return hops[i], true
		}
	}
	return hop{}, false
}

// checkSpread checks that the requests of rr reached every replica, as
// many as rr sent to each (so the rewriting reached the servers), and
// that consecutive requests went to different replicas.
func checkSpread(t *testing.T, c *cluster, rr *roundRobin) {
	t.Helper()
	sent, served := rr.sentCopy(), c.servedFor(rr.tag)
	for i := range sent {
		if sent[i] == 0 || i >= len(served) || served[i] != sent[i] {
			t.Errorf("requests per replica: sent %v, served %v; want every replica to serve what was sent to it, at least one", sent, served)
			break
		}
	}
	hops := rr.trailCopy()
	for i := 1; i < len(hops); i++ {
		if hops[i].replica == hops[i-1].replica {
			t.Errorf("hops %d and %d both went to replica %d:\n%s", i-1, i, hops[i].replica, trailString(hops))
			break
		}
	}
}

// checkOther checks that the last hop posting b went to another replica
// than the last hop posting a.
func checkOther(t *testing.T, rr *roundRobin, a, b string) {
	t.Helper()
	hops := rr.trailCopy()
	ha, okA := lastHop(hops, a)
	hb, okB := lastHop(hops, b)
	switch {
	case !okA || !okB:
		t.Errorf("no %q or no %q hop in the trail:\n%s", a, b, trailString(hops))
	case ha.replica == hb.replica:
		t.Errorf("%q and %q both went to replica %d, so the test proves nothing of the relay:\n%s", a, b, ha.replica, trailString(hops))
	}
}

func trailString(hops []hop) string {
	var b strings.Builder
	for i, h := range hops {
		fmt.Fprintf(&b, "  #%d %s\n", i, h)
	}
	return b.String()
}

// newPooledTransport returns an HTTP transport for many concurrent
// clients, closed (its idle connections) when t ends.
func newPooledTransport(t *testing.T) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 512, 512
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}
