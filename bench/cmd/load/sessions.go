package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// memSnapshot is the server's memory at one moment.
type memSnapshot struct {
	rssKiB     int64
	heapInuse  int64
	goroutines int64
}

func snapshot(p *serverProc) (memSnapshot, error) {
	// Let closed connections' goroutines exit before counting.
	time.Sleep(200 * time.Millisecond)
	stats, err := p.runtimeStats()
	if err != nil {
		return memSnapshot{}, err
	}
	rss, err := rssKiB(p.pid())
	if err != nil {
		return memSnapshot{}, err
	}
	return memSnapshot{rssKiB: rss, heapInuse: stats["heap_inuse"], goroutines: stats["goroutines"]}, nil
}

// runSessions opens n stateful sessions and reports the server's growth.
func runSessions(cfg *config, p *serverProc, rawURL string, n int) error {
	base, err := snapshot(p)
	if err != nil {
		return err
	}
	start := time.Now()
	failed, firstErr := openSessions(cfg, rawURL, n)
	elapsed := time.Since(start)
	after, err := snapshot(p)
	if err != nil {
		return err
	}
	if firstErr != nil {
		fmt.Fprintf(os.Stderr, "load: sessions %s: %d errors, first: %v\n", cfg.impl, failed, firstErr)
	}
	return emit(cfg, "RESULT mode=sessions impl=%s sessions=%d errors=%d open_ms=%d rss_base_kib=%d rss_kib=%d rss_delta_kib=%d heap_delta=%d goroutines_base=%d goroutines=%d",
		cfg.impl, n, failed, elapsed.Milliseconds(), base.rssKiB, after.rssKiB, after.rssKiB-base.rssKiB,
		after.heapInuse-base.heapInuse, base.goroutines, after.goroutines)
}

// openSessions sends n initialize requests from 16 connections, each of
// which must return a session ID, then closes the connections. It returns
// the number of failures and the first one.
func openSessions(cfg *config, rawURL string, n int) (int64, error) {
	const workers = 16
	var next, failed atomic.Int64
	var mu sync.Mutex // guards firstErr
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			cl, err := newMCPClient(rawURL)
			for err == nil && next.Add(1) <= int64(n) {
				cl.session, cl.protocol = "", ""
				err = cl.handshake(cfg.protocol, false)
				if err == nil && cl.session == "" {
					err = errors.New("initialize returned no Mcp-Session-Id")
				}
				if err != nil {
					failed.Add(1)
					mu.Lock()
					firstErr = cmpOr(firstErr, err)
					mu.Unlock()
					err = nil
				}
			}
			if cl != nil {
				cl.close()
			}
		})
	}
	wg.Wait()
	return failed.Load(), firstErr
}
