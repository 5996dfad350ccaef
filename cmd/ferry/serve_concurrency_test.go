package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// callerAt is an HTTP client whose connections leave from a loopback
// address of its own (127.0.0.2, ...), so that the server counts it as a
// caller of its own for the per-caller limits.
func callerAt(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}}
}

// outcome is a call's result as a concurrent test collects it.
type outcome struct {
	res  toolResult
	err  error
	took time.Duration
}

// callFrom calls a tool through hc, from any goroutine: unlike
// served.call it reports a failure in the outcome rather than ending the
// test.
func (s *served) callFrom(ctx context.Context, hc *http.Client, name string, args map[string]any) outcome {
	start := time.Now()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": name, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	}})
	if err != nil {
		return outcome{err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return outcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return outcome{err: err}
	}
	var r rpcReply
	if err := json.Unmarshal(raw, &r); err != nil || r.Error != nil || resp.StatusCode != http.StatusOK {
		return outcome{err: fmt.Errorf("status %d: %s", resp.StatusCode, raw)}
	}
	var o outcome
	o.err = json.Unmarshal(r.Result, &o.res)
	o.took = time.Since(start)
	return o
}

// tally sums up concurrent calls: how many succeeded, the failures'
// texts, and the longest call.
type tally struct {
	mu       sync.Mutex // guards the fields below
	ok       int
	failures []string
	longest  time.Duration
}

func (t *tally) add(name string, o outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.longest = max(t.longest, o.took)
	switch {
	case o.err != nil:
		t.failures = append(t.failures, name+": "+o.err.Error())
	case o.res.IsError:
		t.failures = append(t.failures, name+": "+o.res.text())
	default:
		t.ok++
	}
}

// sorted returns the failures in order, the same ones together.
func (t *tally) sorted() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(slices.Values(t.failures))
}

// Thirty concurrent update_product calls on one row of a SQLite database
// served with -writes, and thirty delete_product calls at the same time,
// all wait their turn and succeed: a transaction that reads the row and
// then needs the write lock is not refused with SQLITE_BUSY.
func TestServeSQLiteConcurrentWrites(t *testing.T) {
	const n = 30
	d := sqliteTestDB(t)
	d.shop(t)
	for i := range n {
		mustExec(t, d.db, fmt.Sprintf("INSERT INTO products (sku, name, price) VALUES ('DEL-%d', 'To delete', 1)", i))
	}
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes"})
	// Updates and deletes come from two callers, each within the
	// default limit of calls in flight.
	updater, deleter := callerAt("127.0.0.1"), callerAt("127.0.0.2")
	var tl tally
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			tl.add("update_product", s.callFrom(t.Context(), updater, "update_product", map[string]any{"sku": "MUG-1", "name": fmt.Sprintf("Mug %d", i)}))
		})
		wg.Go(func() {
			<-start
			tl.add("delete_product", s.callFrom(t.Context(), deleter, "delete_product", map[string]any{"sku": fmt.Sprintf("DEL-%d", i)}))
		})
	}
	close(start)
	wg.Wait()
	failures := tl.sorted()
	t.Logf("%d of %d concurrent writes succeeded; the longest call took %s", tl.ok, 2*n, tl.longest.Round(time.Millisecond))
	if len(failures) > 0 {
		t.Errorf("%d of %d concurrent writes failed, first: %s", len(failures), 2*n, failures[0])
	}
	if n := strings.Count(s.stderr.String(), "SQLITE_BUSY"); n > 0 {
		t.Errorf("the log reports SQLITE_BUSY %d times", n)
	}
	var left int
	if err := d.db.QueryRow("SELECT count(*) FROM products WHERE sku LIKE 'DEL-%'").Scan(&left); err != nil || left != 0 {
		t.Errorf("%d products left to delete (%v); want 0", left, err)
	}
}

// A write waits for a lock another process holds on the SQLite file as
// long as -statement-timeout allows, not only the driver's default
// busy_timeout (5s): a lock held 6s delays a write, which then succeeds.
func TestServeSQLiteWriteWaitsForAnotherProcess(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes", "-statement-timeout", "20s"})
	other, err := d.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := make(chan outcome, 1)
	go func() {
		done <- s.callFrom(t.Context(), callerAt("127.0.0.1"), "update_product", map[string]any{"sku": "MUG-1", "name": "Waited"})
	}()
	time.Sleep(6 * time.Second)
	if _, err := other.ExecContext(t.Context(), "COMMIT"); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil || o.res.IsError {
		t.Errorf("a write after another process's 6s lock: %v %s", o.err, o.res.text())
	}
}
