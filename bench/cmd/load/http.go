package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

// mcpClient is one legacy Streamable HTTP client on its own keep-alive
// connection: it holds the session ID and protocol version from its own
// initialize handshake. It writes requests by hand and parses responses
// with [http.ReadResponse], so that the generator spends as little CPU per
// call as possible and the server, not the generator, is the bottleneck.
type mcpClient struct {
	addr     string // host:port
	path     string
	conn     net.Conn
	br       *bufio.Reader
	session  string
	protocol string
	modern   bool // 2026-07-28: no handshake, routing headers on every call
	nextID   int64

	// live holds the sessions this client rotates through, one per call,
	// when it opened more than one (see openLive).
	live []liveSession
	next int

	req  []byte
	out  []byte
	resp bytes.Buffer
}

func newMCPClient(rawURL string) (*mcpClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	return &mcpClient{addr: u.Host, path: u.Path}, nil
}

func (c *mcpClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// post sends body and returns the status, the JSON-RPC message, if any, and
// the response headers.
func (c *mcpClient) post(body []byte) (int, []byte, http.Header, error) {
	if c.conn == nil {
		conn, err := net.Dial("tcp", c.addr)
		if err != nil {
			return 0, nil, nil, err
		}
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 16<<10)
	}
	b := append(c.out[:0], "POST "...)
	b = append(b, c.path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, c.addr...)
	b = append(b, "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"...)
	if c.session != "" {
		b = append(b, "Mcp-Session-Id: "...)
		b = append(b, c.session...)
		b = append(b, "\r\n"...)
	}
	if c.protocol != "" && !c.modern {
		b = append(b, "MCP-Protocol-Version: "...)
		b = append(b, c.protocol...)
		b = append(b, "\r\n"...)
	}
	if c.modern {
		for _, kv := range wire.ModernHeaders {
			b = append(b, kv[0]...)
			b = append(b, ": "...)
			b = append(b, kv[1]...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	c.out = b
	if _, err := c.conn.Write(b); err != nil {
		c.close()
		return 0, nil, nil, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.close()
		return 0, nil, nil, err
	}
	c.resp.Reset()
	_, err = c.resp.ReadFrom(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Close {
		c.close()
	}
	if err != nil {
		return resp.StatusCode, nil, resp.Header, err
	}
	msg := c.resp.Bytes()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, msg, resp.Header, nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg, err = wire.SSEMessage(msg)
	}
	return resp.StatusCode, msg, resp.Header, err
}

// handshake initializes a session: initialize, then notifications/initialized.
func (c *mcpClient) handshake(proto string, notify bool) error {
	c.nextID++
	status, msg, hdr, err := c.post(wire.InitializeBody(c.nextID, proto))
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("initialize: HTTP %d: %.200q", status, msg)
	}
	r, err := wire.DecodeResponse(msg)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	c.protocol = r.Result.ProtocolVersion
	if !notify {
		return nil
	}
	status, msg, _, err = c.post(wire.InitializedBody)
	if err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	if status != http.StatusAccepted && status != http.StatusOK && status != http.StatusNoContent {
		return fmt.Errorf("notifications/initialized: HTTP %d: %.200q", status, msg)
	}
	return nil
}

// liveSession is one session a client opened: its id and version.
type liveSession struct{ id, protocol string }

// start prepares c for calls: a 2026-07-28 client needs no handshake; a
// legacy one initializes one session, or n if n > 1, which it then uses in
// turn, one per call.
func (c *mcpClient) start(proto string, n int) error {
	if wire.IsModern(proto) {
		c.modern, c.protocol = true, proto
		return nil
	}
	if n <= 1 {
		return c.handshake(proto, true)
	}
	for range n {
		c.session, c.protocol = "", ""
		if err := c.handshake(proto, true); err != nil {
			return err
		}
		c.live = append(c.live, liveSession{c.session, c.protocol})
	}
	return nil
}

// callAdd calls add(2, 3) and verifies the result.
func (c *mcpClient) callAdd() error {
	c.nextID++
	if len(c.live) > 0 {
		s := c.live[c.next]
		c.session, c.protocol = s.id, s.protocol
		c.next = (c.next + 1) % len(c.live)
	}
	if c.modern {
		c.req = wire.AppendModernAddCall(c.req[:0], c.nextID)
	} else {
		c.req = wire.AppendAddCall(c.req[:0], c.nextID)
	}
	status, msg, _, err := c.post(c.req)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("tools/call: HTTP %d: %.200q", status, msg)
	}
	_, err = wire.CheckAdd(msg)
	return err
}

// Measurement phases shared by the HTTP and stdio drivers.
const (
	phaseWarmup int32 = iota
	phaseMeasure
	phaseStop
)

// recorder collects latencies of calls completed during the measure phase
// and counts errors in every phase. Each worker owns one.
type recorder struct {
	lat    []time.Duration
	errors int
	first  error
}

func (r *recorder) fail(err error) {
	r.errors++
	if r.first == nil {
		r.first = err
	}
}

// runHTTP measures tools/call throughput at concurrency c against url.
func runHTTP(cfg *config, rawURL string, pid, c int) (*result, error) {
	clients := make([]*mcpClient, c)
	for i := range clients {
		cl, err := newMCPClient(rawURL)
		if err != nil {
			return nil, err
		}
		defer cl.close()
		if err := cl.start(cfg.protocol, liveShare(cfg.live, c, i)); err != nil {
			return nil, err
		}
		clients[i] = cl
	}
	var phase atomic.Int32
	recs := make([]recorder, c)
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Go(func() {
			rec := &recs[i]
			for phase.Load() != phaseStop {
				t0 := time.Now()
				err := cl.callAdd()
				el := time.Since(t0)
				if err != nil {
					rec.fail(err)
				} else if phase.Load() == phaseMeasure {
					rec.lat = append(rec.lat, el)
				}
			}
		})
	}
	res := measure(cfg, pid, &phase)
	wg.Wait()
	res.collect(recs)
	res.c = c
	return res, nil
}

// liveShare is how many of live sessions client i of c opens.
func liveShare(live, c, i int) int {
	if live <= 1 {
		return 1
	}
	n := live / c
	if i < live%c {
		n++
	}
	return max(n, 1)
}

// measure runs the warm-up and measure phases, sampling CPU at the edges.
func measure(cfg *config, pid int, phase *atomic.Int32) *result {
	time.Sleep(cfg.warmup)
	srv0, err0 := cpuTime(pid)
	all0, err1 := busyCPU()
	self0 := selfCPU()
	t0 := time.Now()
	phase.Store(phaseMeasure)
	time.Sleep(cfg.duration)
	phase.Store(phaseStop)
	wall := time.Since(t0)
	srv1, err2 := cpuTime(pid)
	all1, err3 := busyCPU()
	res := &result{wall: wall, loadCPU: selfCPU() - self0, serverCPU: -1, otherCPU: -1}
	if errors.Join(err0, err2) == nil {
		res.serverCPU = srv1 - srv0
		if errors.Join(err1, err3) == nil {
			res.otherCPU = max(0, all1-all0-res.serverCPU-res.loadCPU)
		}
	}
	return res
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
