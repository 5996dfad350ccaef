package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

// callgrindGrace is how long a server under callgrind may take to exit and
// write its profile once told to stop.
const callgrindGrace = 2 * time.Minute

// runInstr counts the instructions a server executes per tools/call under
// valgrind's callgrind, which is deterministic where wall-clock figures on
// a shared machine are not. It runs the server twice, for n1 and then n2
// calls from one client, and reports (Ir(n2) - Ir(n1)) / (n2 - n1), so that
// start-up, the handshakes and exit cancel out. The server runs with
// GODEBUG=gcstoptheworld=1 so that repeats agree.
func runInstr(cfg *config) error {
	if _, err := exec.LookPath(cfg.valgrind); err != nil {
		return fmt.Errorf("instr needs valgrind: %w", err)
	}
	dir := cfg.keep
	if dir == "" {
		d, err := os.MkdirTemp("", "ferry-instr-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	var ir [2]int64
	for i, n := range []int{cfg.n1, cfg.n2} {
		out := filepath.Join(dir, fmt.Sprintf("callgrind.%s.%s.%d.out", cfg.impl, cfg.variant(), n))
		if err := callgrindRun(cfg, n, out); err != nil {
			return fmt.Errorf("%d calls: %w", n, err)
		}
		var err error
		if ir[i], err = callgrindTotal(out); err != nil {
			return err
		}
	}
	return emit(cfg, "RESULT mode=instr variant=%s impl=%s n1=%d n2=%d ir1=%d ir2=%d instr_per_call=%.0f",
		cfg.variant(), cfg.impl, cfg.n1, cfg.n2, ir[0], ir[1], perCall(ir[0], ir[1], cfg.n1, cfg.n2))
}

// perCall is the instructions per call from two runs of n1 and n2 calls.
func perCall(ir1, ir2 int64, n1, n2 int) float64 {
	return float64(ir2-ir1) / float64(n2-n1)
}

// callgrindRun runs the server under callgrind for n calls, writing the
// profile to out.
func callgrindRun(cfg *config, n int, out string) error {
	args := []string{"-impl", cfg.impl}
	if cfg.transport == "stdio" {
		args = append(args, "-stdio")
	} else {
		args = append(args, "-http", "127.0.0.1:0", "-quit")
		if cfg.stateful {
			args = append(args, "-sessions")
		}
	}
	cmd := serverCommandWith(cfg, []string{cfg.valgrind, "--tool=callgrind", "-q", "--callgrind-out-file=" + out},
		[]string{"GODEBUG=gcstoptheworld=1,asyncpreemptoff=1"}, args...)
	switch cfg.transport {
	case "stdio":
		return callgrindStdio(cfg, cmd, n)
	case "http":
		return callgrindHTTP(cfg, cmd, n)
	}
	return fmt.Errorf("unknown -transport %q", cfg.transport)
}

// callgrindHTTP makes n calls over HTTP to the server cmd starts, then asks
// it to quit and waits for it to write its profile.
func callgrindHTTP(cfg *config, cmd *exec.Cmd, n int) (err error) {
	p, url, err := startListening(cmd)
	if err != nil {
		return err
	}
	p.grace = callgrindGrace
	// On an early return this stops the server; after p.wait it returns
	// what p.wait did.
	defer func() { err = cmpOr(err, p.stop()) }()
	cl, err := newMCPClient(url)
	if err != nil {
		return err
	}
	defer cl.close()
	if err := cl.start(cfg.protocol, cfg.live); err != nil {
		return err
	}
	for range n {
		if err := cl.callAdd(); err != nil {
			return err
		}
	}
	cl.close()
	// Callgrind cannot deliver a signal to a Go program, so ask over HTTP.
	resp, err := http.Post(strings.TrimSuffix(url, "/mcp")+"/quit", "text/plain", nil)
	if err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	resp.Body.Close()
	return p.wait()
}

// callgrindStdio makes n calls over a pipe to the server cmd starts, then
// closes its input and waits for it to write its profile.
func callgrindStdio(cfg *config, cmd *exec.Cmd, n int) (err error) {
	p, stdin, stdout, err := startPiped(cmd)
	if err != nil {
		return err
	}
	p.grace = callgrindGrace
	// On an early return this stops the server; after p.wait it returns
	// what p.wait did.
	defer func() { err = cmpOr(err, p.stop()) }()
	in := bufio.NewReaderSize(stdout, 1<<20)
	out := bufio.NewWriterSize(stdin, 64<<10)
	if err := stdioHandshake(in, out, cfg.protocol); err != nil {
		return err
	}
	if err := stdioCalls(in, out, n, cfg.inflight); err != nil {
		return err
	}
	stdin.Close() // the server exits at the end of its input
	return p.wait()
}

// stdioCalls sends n add calls, keeping at most inflight outstanding, and
// checks every answer.
func stdioCalls(in *bufio.Reader, out *bufio.Writer, n, inflight int) error {
	free := make(chan struct{}, inflight)
	for range inflight {
		free <- struct{}{}
	}
	done := make(chan error, 1)
	go func() {
		for got := 0; got < n; {
			line, err := in.ReadSlice('\n')
			if err != nil {
				done <- fmt.Errorf("reading server output: %w", err)
				return
			}
			if !bytes.Contains(line, []byte(`"id"`)) {
				continue
			}
			if _, err := wire.CheckAdd(line); err != nil {
				done <- err
				return
			}
			got++
			free <- struct{}{}
		}
		done <- nil
	}()
	var buf []byte
	for i := range n {
		select {
		case <-free:
		default:
			if err := out.Flush(); err != nil {
				return err
			}
			select {
			case <-free:
			case err := <-done:
				return cmpOr(err, errors.New("server stopped answering"))
			}
		}
		buf = wire.AppendAddCall(buf[:0], int64(i+1))
		buf = append(buf, '\n')
		if _, err := out.Write(buf); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	return <-done
}

// callgrindTotal reads the total instruction count from a callgrind
// profile: its "summary:" line, or "totals:" in older formats.
func callgrindTotal(path string) (int64, error) {
	f, err := os.Open(path) //nolint:gosec // the profile callgrind wrote, in -keep or our own temporary directory
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var total int64 = -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, key := range []string{"summary:", "totals:"} {
			if rest, ok := strings.CutPrefix(line, key); ok && total < 0 {
				fields := strings.Fields(rest)
				if len(fields) == 0 {
					continue
				}
				if total, err = strconv.ParseInt(fields[0], 10, 64); err != nil {
					return 0, fmt.Errorf("%s: %w", path, err)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if total < 0 {
		return 0, fmt.Errorf("%s: no summary line", path)
	}
	return total, nil
}
