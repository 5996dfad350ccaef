package ferry_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// collect reads a response to its end (a JSON body, or every SSE event).
type collected struct {
	status int
	events []string
	err    error
}

func collect(ctx context.Context, method, url, session, body string, header ...string) collected {
	var out collected
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		out.err = err
		return out
	}
	defer resp.Body.Close()
	out.status = resp.StatusCode
	buf := new(strings.Builder)
	_, out.err = copyBody(buf, resp)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.SplitSeq(buf.String(), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
				out.events = append(out.events, data)
			}
		}
	} else if buf.Len() > 0 {
		out.events = []string{buf.String()}
	}
	return out
}

func copyBody(w *strings.Builder, resp *http.Response) (int64, error) {
	b := make([]byte, 4096)
	var n int64
	for {
		k, err := resp.Body.Read(b)
		w.Write(b[:k])
		n += int64(k)
		if err != nil {
			if err.Error() == "EOF" {
				return n, nil
			}
			return n, err
		}
	}
}

// Shutdown at a random moment of a mix of traffic: running calls (that
// finish or are stuck), elicitations nobody answers, GET streams, listens,
// batches, new requests racing the shutdown, two Shutdowns at once. Every
// client gets a whole answer for its id, a 503 with its id, or (a GET) a
// clean end; Shutdown returns nil or the deadline's error; nothing is
// left running.
func TestHTTPShutdownAtRandomMoments(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for round := range rounds {
		delay := time.Duration(rng.IntN(40)) * time.Millisecond
		deadline := time.Duration(rng.IntN(150)) * time.Millisecond
		releaseAfter := time.Duration(rng.IntN(200)) * time.Millisecond
		t.Run(fmt.Sprintf("%d-delay%v-deadline%v-release%v", round, delay, deadline, releaseAfter), func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := newShutdownServer(t, &ferry.HTTPOptions{Stateful: true})
			s.started, s.ended = make(chan string, 1000), make(chan string, 1000)
			s.srv.AddTool(ferry.Tool{Name: "ask", Description: "Asks; nobody answers."}, func(ctx context.Context, _ *ferry.CallToolRequest) (*ferry.ToolResult, error) {
				_, err := ferry.Elicit(ctx, &ferry.ElicitParams{Message: "Sure?", RequestedSchema: []byte(`{"type":"object","properties":{}}`)})
				return nil, err
			})
			sess := initLegacy(t, s.ts.URL, `{"elicitation":{}}`)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			type client struct {
				what, id string // id: the JSON-RPC id the answer must carry; "" for a GET
				got      collected
			}
			var (
				mu      sync.Mutex
				clients []*client
				wg      sync.WaitGroup
			)
			start := func(what, id, method, session, body string, header ...string) {
				c := &client{what: what, id: id}
				mu.Lock()
				clients = append(clients, c)
				mu.Unlock()
				wg.Go(func() { c.got = collect(ctx, method, s.ts.URL, session, body, header...) })
			}
			n := 0
			traffic := func() {
				n++
				k := fmt.Sprint(n)
				switch rng.IntN(7) {
				case 0:
					body, hd := modernToolCall(`"g`+k+`"`, "gate")
					start("modern gate", `"g`+k+`"`, "POST", "", body, hd...)
				case 1:
					body, hd := modernToolCall(`"s`+k+`"`, "stuck")
					start("modern stuck", `"s`+k+`"`, "POST", "", body, hd...)
				case 2:
					start("legacy gate", `"lg`+k+`"`, "POST", sess, `{"jsonrpc":"2.0","id":"lg`+k+`","method":"tools/call","params":{"name":"gate","arguments":{}}}`)
				case 3:
					start("elicitation", `"e`+k+`"`, "POST", sess, `{"jsonrpc":"2.0","id":"e`+k+`","method":"tools/call","params":{"name":"ask","arguments":{}}}`)
				case 4:
					start("batch", `"b`+k+`"`, "POST", sess, `[{"jsonrpc":"2.0","id":"b`+k+`","method":"tools/call","params":{"name":"stuck","arguments":{}}},`+
						`{"jsonrpc":"2.0","id":"bp`+k+`","method":"ping"},{"jsonrpc":"2.0","id":"be`+k+`","method":"tools/call","params":{"name":"ask","arguments":{}}}]`)
				case 5:
					start("listen", `"l`+k+`"`, "POST", "", `{"jsonrpc":"2.0","id":"l`+k+`","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMetaJSON+`}}`,
						"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen")
				case 6:
					start("GET", "", "GET", sess, "")
				}
			}
			for range 10 {
				traffic()
			}
			time.Sleep(delay)
			errs := make(chan error, 2)
			for range 2 {
				go func() {
					sctx, scancel := context.WithTimeout(context.Background(), deadline)
					defer scancel()
					errs <- s.h.Shutdown(sctx)
				}()
			}
			for range 5 { // racing the shutdown
				traffic()
			}
			time.AfterFunc(releaseAfter, func() { close(s.release) })
			for range 2 {
				if err := <-errs; err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Shutdown = %v", err)
				}
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("a client still waits 15s after the shutdown")
			}
			for _, c := range clients {
				if c.got.err != nil {
					t.Errorf("%s %s: %v (events %q)", c.what, c.id, c.got.err, c.got.events)
					continue
				}
				if c.id == "" { // a GET: a clean end, or refused (409: the session's one GET stream is open)
					if c.got.status != 200 && c.got.status != 503 && c.got.status != 409 {
						t.Errorf("GET: %d %q", c.got.status, c.got.events)
					}
					for _, ev := range c.got.events {
						if strings.Contains(ev, `"error"`) && c.got.status == 200 {
							t.Errorf("GET stream's event: %s", ev)
						}
					}
					continue
				}
				if len(c.got.events) == 0 {
					t.Errorf("%s %s: HTTP %d and no answer", c.what, c.id, c.got.status)
					continue
				}
				last := c.got.events[len(c.got.events)-1]
				if !strings.Contains(last, `"id":`+c.id) || (!strings.Contains(last, `"result"`) && !strings.Contains(last, `"error"`)) {
					t.Errorf("%s %s: HTTP %d, last event %s", c.what, c.id, c.got.status, last)
				}
				if c.got.status == 503 && !strings.Contains(last, "shutting down") {
					t.Errorf("%s %s: 503 %s", c.what, c.id, last)
				}
				if c.what == "listen" && c.got.status == 200 && strings.Contains(last, `"error"`) {
					t.Errorf("a listen ended with an error: %s", last)
				}
			}
			s.ts.Close()
			// the stuck tools may still be returning
			noGoroutinesLeft(t, before)
		})
	}
}
